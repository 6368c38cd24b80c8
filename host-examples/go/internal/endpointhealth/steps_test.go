package endpointhealth

import (
	"context"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var (
	testPolicy = rp.Policy{WindowMs: 900000, HardCap: 16,
		Backoff: rp.Backoff{BaseMs: 1000, Factor: 2, CapMs: 60000, Jitter: rp.JitterFull},
		Budget:  rp.Budget{Ratio: 0.5, WindowMs: 60000, MinSample: 100}}
	testHealth = rp.Health{PauseMaxMs: 600000, CacheMs: 1000, Release: rp.Release{Multiple: 1, FloorPerS: 1},
		Circuit: &rp.Circuit{FailureRatio: 0.5, MinSample: 1, CooldownMs: 5000, CooldownMaxMs: 20000, Probes: 5, ProbeIntervalMs: 1000}}
)

func TestOneReplicaMakesOneProbeCallPerEndpointAndProbeWindow(t *testing.T) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	c, err := e.Compile(ctx, testPolicy, &testHealth)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	probes := 0
	s := Steps{Engine: e, Calls: rp.NewMemoryCallStore(e), OnProbe: func(bool, error) { probes++ }}
	tab := New(0)
	const t0 = 1_000_000
	open, err := c.CallFor(ctx, rp.CallOpReserve, "ep", t0) // a failed first attempt's record opens the circuit
	if err != nil {
		t.Fatal(err)
	}
	open.Op, open.Health.Outcome = rp.CallOpRecord, rp.HealthOutcomeFailure
	if reply, err := tab.Call(ctx, s, "ep", open, t0); err != nil || reply.View == nil || reply.View.OpenedAtMs != t0 {
		t.Fatalf("the circuit did not open: %+v %v", reply, err)
	}
	gate := func(id string, now uint64) rp.GateVerdict {
		ev := rp.GateEvent{EventID: id, EndpointID: "ep", Attempts: 1, FirstAttemptedAtMs: t0, Held: true}
		v, err := tab.Gate(ctx, s, c, ev, testPolicy.Budget, t0+testPolicy.WindowMs, now)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	after := uint64(t0 + 5_000) // the cooldown's end
	if v := gate("a", after); !v.SendProbe || probes != 1 {
		t.Fatalf("the first event after the cooldown: %+v after %d probe calls, want a granted probe after 1", v, probes)
	}
	// the store would grant 5 per window; this replica asks once
	if v := gate("b", after+10); v.Hold == nil || v.Hold.Reason != rp.HoldReasonProbeRefused || v.Hold.UntilMs != after+1_000 || probes != 1 {
		t.Fatalf("a second event in the same probe window: %+v after %d probe calls, want held probe_refused until the next window, no call", v, probes)
	}
	if gate("c", after+1_000); probes != 2 {
		t.Fatalf("the next probe window: %d probe calls, want 2", probes)
	}
}
