// Package bench holds the benchmark bodies shared by `go test -bench`
// (retrypolicy/bench_test.go) and the table printer (cmd/benchtable), so
// both measure exactly the same work.
package bench

import (
	"context"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The measured attempt: a 503 on attempt 3 that passes every gate, so the
// policy classifies, computes the jittered delay and leaves only the
// budget (the longest path), and the store reserves the retry.
var (
	Policy = rp.Policy{
		Backoff:  rp.Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: rp.JitterFull},
		WindowMs: 900000, HardCap: 16,
		Budget: rp.Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 50, Sliding: true},
	}
	State   = rp.DeliveryState{EventID: "evt_01HZX3K9Q2", EndpointID: "ep_42", Attempt: 3, MaxAttempts: 13, FirstAttemptedAtMs: 1700000000000}
	Outcome = rp.ResponseOutcome(503)
	NowMs   = uint64(1700000005000)
	// Reply is what a store answers for the attempt: reserved, on these counts.
	Reply = rp.Reservation{Reserved: true, Counts: rp.BudgetCounts{Current: rp.BucketCounts{Total: 1000, Retries: 5}, Previous: rp.BucketCounts{Total: 1000, Retries: 5}}}
)

// ConstantStore answers every request with Reply (the store's own cost is
// not the policy's: Redis is measured by tests/fleet/bench).
var ConstantStore = rp.BudgetStoreFunc(func(context.Context, rp.StoreRequest, rp.Budget, uint64) (rp.Reservation, error) {
	return Reply, nil
})

func engine(b *testing.B, opts ...rp.Option) *rp.Engine {
	e, err := rp.New(context.Background(), opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

func mustRetry(b *testing.B, d rp.Decision, err error) {
	if err != nil || d.Retry == nil {
		b.Fatalf("want a retry, got %+v %v", d, err)
	}
}

// EvaluateSettle: one delivery step through the typed API, by hand:
// Evaluate, the store's reply, Settle.
func EvaluateSettle(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	reply := rp.StoreReply{Answered: &Reply}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := e.Evaluate(ctx, Policy, State, Outcome, NowMs)
		if err != nil || st.Store == nil || st.Decision != nil {
			b.Fatalf("want a reserve request, got %+v %v", st, err)
		}
		s, err := e.Settle(ctx, Policy, State, Outcome, NowMs, reply)
		mustRetry(b, s.Decision, err)
	}
}

// Step: Engine.Step (evaluate, one store call, settle) with ConstantStore.
func Step(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := e.Step(ctx, ConstantStore, Policy, State, Outcome, NowMs)
		mustRetry(b, r.Decision, err)
	}
}

// Decide: the imports-driven decide (clock and ConstantStore through the
// component's imports).
func Decide(b *testing.B) {
	e := engine(b, rp.WithClock(rp.ClockFunc(func() uint64 { return NowMs })), rp.WithBudgetStore(ConstantStore))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := e.Decide(ctx, Policy, State, Outcome)
		mustRetry(b, d, err)
	}
}

// DecideMemoryStore: decide with the default MemoryStore (a nested
// store-apply call per decision). Ratio 1 keeps the growing counts allowing.
func DecideMemoryStore(b *testing.B) {
	e := engine(b, rp.WithClock(rp.ClockFunc(func() uint64 { return NowMs })))
	p := Policy
	p.Budget.Ratio = 1
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := e.Decide(ctx, p, State, Outcome)
		mustRetry(b, d, err)
	}
}

// StepInterpreter: Engine.Step in wazero's interpreter.
func StepInterpreter(b *testing.B) { stepWith(b, engine(b, rp.WithInterpreter()), Outcome, true) }

// Terminal is an attempt a gate decides (410 on attempt 3): no store call,
// one component call (evaluate).
var Terminal = rp.ResponseOutcome(410)

// StepDecided: Engine.Step on an attempt a gate decides.
func StepDecided(b *testing.B) { stepWith(b, engine(b), Terminal, false) }

func stepWith(b *testing.B, e *rp.Engine, o rp.AttemptOutcome, retry bool) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := e.Step(ctx, ConstantStore, Policy, State, o, NowMs)
		if retry {
			mustRetry(b, r.Decision, err)
		} else if err != nil || r.Decision.Stop == nil {
			b.Fatalf("want a stop, got %+v %v", r, err)
		}
	}
}

// AdmitDocument: Engine.Admit, the whole document (the dispatcher row's,
// one class) lowered per event.
func AdmitDocument(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	doc, err := e.LoadDocument(ctx, []byte(dispatchDocument))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Admit(ctx, doc, DispatchClass, NowMs); err != nil {
			b.Fatal(err)
		}
	}
}

// StepParallel: Engine.Step from GOMAXPROCS goroutines at once.
func StepParallel(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r, err := e.Step(ctx, ConstantStore, Policy, State, Outcome, NowMs)
			mustRetry(b, r.Decision, err)
		}
	})
}
