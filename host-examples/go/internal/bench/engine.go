package bench

import (
	"context"
	"strconv"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// EngineCrossings is how many component calls one delivered event takes
// through the delivery engine in DeliveryEngineEvent: two batches.
const EngineCrossings = 2

// engineConfig: one class with a budget (so the engine makes its store
// calls), answered by the engine's own memory store.
const engineConfig = `{"memory_store": true, "document": {"version": "b1", "classes": {"n": {
	"window_ms": 900000, "hard_cap": 16,
	"backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"},
	"budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 50, "sliding": true}}}}}`

// DeliveryEngineEvent: one delivered event through rp.DeliveryEngine with
// memory_store: Feed [admit] (journal, send), then Feed [result 200]
// (journal, the store's record, delivered); EngineCrossings calls, the
// JSON both ways included.
func DeliveryEngineEvent(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	d, err := e.OpenDeliveryEngine(ctx, engineConfig)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.Close(ctx) })
	now := uint64(1700000000000)
	b.ReportAllocs()
	cpu0, _ := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := "evt_" + strconv.Itoa(i)
		now++
		var a rp.EngineAnswer
		err := d.Feed(ctx, []any{map[string]any{"op": "admit", "now_ms": now, "event_id": id,
			"endpoint_id": "ep_42", "target": "https://hooks.example.com/ep_42", "class": "n"}}, &a)
		if err != nil || len(a.Errors) != 0 || !has(a, "send") {
			b.Fatalf("admit: want a send, got %+v %v", a, err)
		}
		a = rp.EngineAnswer{}
		err = d.Feed(ctx, []any{map[string]any{"op": "result", "now_ms": now, "event_id": id, "attempt": 1, "status": 200}}, &a)
		if err != nil || len(a.Errors) != 0 || !has(a, "delivered") {
			b.Fatalf("result 200: want delivered, got %+v %v", a, err)
		}
	}
	b.StopTimer()
	if cpu1, err := processCPU(); err == nil && cpu0 > 0 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/event")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*EngineCrossings), "µs/feed")
	b.ReportMetric(EngineCrossings, "crossings/event")
}

func has(a rp.EngineAnswer, action string) bool {
	for _, o := range a.Outputs {
		if o["action"] == action {
			return true
		}
	}
	return false
}
