package retrypolicy_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

const engineT0 = uint64(1800000000000)

// engineConfig is a config of docs/engine.md section 1: one class "n"
// (4 attempts in a minute, 1 s then 2 s backoff, no jitter).
func engineConfig(memoryStore bool) map[string]any {
	return map[string]any{
		"document": map[string]any{
			"version": "t1",
			"classes": map[string]any{"n": map[string]any{
				"window_ms": 60000, "hard_cap": 4,
				"backoff": map[string]any{"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"},
			}},
		},
		"memory_store": memoryStore,
	}
}

func admit(now uint64, id string) map[string]any {
	return map[string]any{"op": "admit", "now_ms": now, "event_id": id, "endpoint_id": "ep-1",
		"target": "https://hooks.example.com/ep-1", "class": "n"}
}

func result(now uint64, id string, attempt, status int) map[string]any {
	return map[string]any{"op": "result", "now_ms": now, "event_id": id, "attempt": attempt, "status": status}
}

func openEngine(t *testing.T, e *rp.Engine, config any) *rp.DeliveryEngine {
	t.Helper()
	d, err := e.OpenDeliveryEngine(context.Background(), config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close(context.Background()) })
	return d
}

func feed(t *testing.T, d *rp.DeliveryEngine, inputs ...any) rp.EngineAnswer {
	t.Helper()
	var a rp.EngineAnswer
	if err := d.Feed(context.Background(), inputs, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// actions returns the outputs whose action is name.
func actions(a rp.EngineAnswer, name string) []map[string]any {
	var out []map[string]any
	for _, o := range a.Outputs {
		if o["action"] == name {
			out = append(out, o)
		}
	}
	return out
}

func wantEngineCode(t *testing.T, err error, code string) {
	t.Helper()
	var ee *rp.EngineError
	if !errors.As(err, &ee) || ee.Code != code || ee.Message == "" {
		t.Fatalf("want an *EngineError %s with a message, got %T %v", code, err, err)
	}
}

func TestA503ThenA200AreOneDeliveredEventThroughFeedWithTheMemoryStore(t *testing.T) {
	d := openEngine(t, newEngine(t), engineConfig(true))
	a := feed(t, d, admit(engineT0, "ev-1"))
	if s := actions(a, "send"); len(s) != 1 || s[0]["attempt"] != json.Number("1") || s[0]["event_id"] != "ev-1" {
		t.Fatalf("admit: want one send of attempt 1, got %+v", a.Outputs)
	}
	a = feed(t, d, result(engineT0+5, "ev-1", 1, 503))
	if len(a.Errors) != 0 || len(actions(a, "send")) != 0 || a.TimeoutMs == nil || *a.TimeoutMs != engineT0+1005 {
		t.Fatalf("503: want no send and a wake 1 s later, got %+v", a)
	}
	a = feed(t, d, map[string]any{"op": "tick", "now_ms": *a.TimeoutMs})
	if s := actions(a, "send"); len(s) != 1 || s[0]["attempt"] != json.Number("2") {
		t.Fatalf("tick: want the send of attempt 2, got %+v", a.Outputs)
	}
	a = feed(t, d, result(engineT0+1010, "ev-1", 2, 200))
	if len(a.Errors) != 0 || len(actions(a, "delivered")) != 1 || a.TimeoutMs != nil {
		t.Fatalf("200: want delivered and nothing to wake for, got %+v", a)
	}
}

func TestARefusedInputComesBackWithItsCodeAndTheBatchGoesOn(t *testing.T) {
	d := openEngine(t, newEngine(t), engineConfig(true))
	feed(t, d, admit(engineT0, "ev-1"))
	a := feed(t, d, admit(engineT0+1, "ev-1"), map[string]any{"op": "tick", "now_ms": engineT0 - 1}, admit(engineT0+2, "ev-2"))
	if len(a.Errors) != 2 || a.Errors[0].Index != 0 || a.Errors[0].Error != "duplicate_event" ||
		a.Errors[1].Index != 1 || a.Errors[1].Error != "time_went_backwards" || a.Errors[0].Message == "" {
		t.Fatalf("want duplicate_event at 0 and time_went_backwards at 1, got %+v", a.Errors)
	}
	if s := actions(a, "send"); len(s) != 1 || s[0]["event_id"] != "ev-2" {
		t.Fatalf("the third input (ev-2) should still be admitted and sent, got %+v", a.Outputs)
	}
	var b rp.EngineAnswer
	err := d.Resume(context.Background(), engineT0+3, []byte("not a journal\n"), &b)
	if err != nil || len(b.Errors) != 1 || b.Errors[0].Error != "resume_too_late" {
		t.Fatalf("resume after an admit: want resume_too_late, got %+v %v", b, err)
	}
}

func TestAFeedOrResumeAfterCloseIsATypedErrorNamingTheHandle(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	d, err := e.OpenDeliveryEngine(ctx, engineConfig(true))
	if err != nil {
		t.Fatal(err)
	}
	feed(t, d, admit(engineT0, "ev-1"))
	if err := d.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(ctx); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
	err = d.Feed(ctx, []any{map[string]any{"op": "tick", "now_ms": engineT0 + 1}}, &rp.EngineAnswer{})
	wantEngineCode(t, err, "invalid_input")
	if !strings.Contains(err.Error(), "handle") {
		t.Fatalf("the error should name the handle: %v", err)
	}
	err = d.Resume(ctx, engineT0+1, nil, &rp.EngineAnswer{})
	wantEngineCode(t, err, "invalid_input")
	// the instance went back to the pool: a new engine there starts empty
	d2 := openEngine(t, e, engineConfig(true))
	if a := feed(t, d2, admit(engineT0, "ev-1")); len(a.Errors) != 0 {
		t.Fatalf("a fresh engine refused ev-1: %+v", a.Errors)
	}
}

func TestAConfigOrBatchTheEngineRefusesIsATypedErrorWithTheEnginesCode(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	_, err := e.OpenDeliveryEngine(ctx, `{"document": {"version": "t1", "classes": {}}, "colour": 1}`)
	wantEngineCode(t, err, "invalid_input")
	if !strings.Contains(err.Error(), "colour") {
		t.Fatalf("the error should name the unknown field: %v", err)
	}
	d := openEngine(t, e, engineConfig(true))
	err = d.Feed(ctx, `{"op": "tick"}`, &rp.EngineAnswer{})
	wantEngineCode(t, err, "invalid_input")
	err = d.Feed(ctx, "[\xff]", &rp.EngineAnswer{})
	wantEngineCode(t, err, "invalid_input")
	if a := feed(t, d, admit(engineT0, "ev-1")); len(a.Errors) != 0 || len(actions(a, "send")) != 1 {
		t.Fatalf("the engine should be usable after refused batches: %+v", a)
	}
}

func TestEngineCloseDoesNotWaitForAnOpenDeliveryEngineWhichThenAnswersErrClosed(t *testing.T) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.OpenDeliveryEngine(ctx, engineConfig(true))
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- e.Close(ctx) }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Engine.Close waited for the open DeliveryEngine")
	}
	if err := d.Feed(ctx, []any{admit(engineT0, "ev-1")}, &rp.EngineAnswer{}); !errors.Is(err, rp.ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
	if err := d.Close(ctx); err != nil && !errors.Is(err, rp.ErrClosed) {
		t.Fatalf("Close after Engine.Close: %v", err)
	}
}
