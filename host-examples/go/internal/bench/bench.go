// Package bench holds the benchmark bodies shared by `go test -bench`
// (retrypolicy/bench_test.go) and the table printer (cmd/benchtable), so
// both measure exactly the same work.
package bench

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/baseline"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The measured decision: a 503 on attempt 3 that passes every gate, so
// both implementations classify, compute the jittered delay and check the
// budget (the longest path of decide).
var (
	Policy = rp.Policy{
		Backoff:  rp.Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: rp.JitterFull},
		WindowMs: 900000, HardCap: 16,
		Budget: rp.Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 50, Sliding: true},
	}
	State   = rp.DeliveryState{EventID: "evt_01HZX3K9Q2", EndpointID: "ep_42", Attempt: 3, MaxAttempts: 13, FirstAttemptedAtMs: 1700000000000}
	Outcome = rp.ResponseOutcome(503)
	NowMs   = uint64(1700000005000)
	Counts  = &rp.BudgetCounts{Current: rp.BucketCounts{Total: 1000, Retries: 5}, Previous: rp.BucketCounts{Total: 1000, Retries: 5}}
)

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

// DecideWithWazero: the pure decision through the component's module.
func DecideWithWazero(b *testing.B) { decideWith(b, engine(b)) }

// DecideWithInterpreter: the same in wazero's interpreter.
func DecideWithInterpreter(b *testing.B) { decideWith(b, engine(b, rp.WithInterpreter())) }

func decideWith(b *testing.B, e *rp.Engine) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := e.DecideWith(ctx, Policy, State, Outcome, NowMs, Counts)
		mustRetry(b, d, err)
	}
}

// DecideWithBaseline: the BASELINE plain Go port (internal/baseline).
func DecideWithBaseline(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d, err := baseline.DecideWith(Policy, State, Outcome, NowMs, Counts)
		mustRetry(b, d, err)
	}
}

// DecideWithImports: decide reading the clock and a MemoryCounter through
// the imports and recording the retry, as a dispatcher does. The budget
// ratio is 1 so the ever-growing counts keep allowing the retry.
func DecideWithImports(b *testing.B) {
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

// DecideWithWazeroParallel: DecideWith from GOMAXPROCS goroutines at once.
func DecideWithWazeroParallel(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			d, err := e.DecideWith(ctx, Policy, State, Outcome, NowMs, Counts)
			mustRetry(b, d, err)
		}
	})
}

// DecideWithBaselineParallel: the baseline from GOMAXPROCS goroutines.
func DecideWithBaselineParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			d, err := baseline.DecideWith(Policy, State, Outcome, NowMs, Counts)
			mustRetry(b, d, err)
		}
	})
}

// Compile: wazero compiling the embedded core module (fresh runtime, no cache).
func Compile(b *testing.B) {
	ctx := context.Background()
	module := rp.CoreModule()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rt := wazero.NewRuntime(ctx)
		if _, err := rt.CompileModule(ctx, module); err != nil {
			b.Fatal(err)
		}
		_ = rt.Close(ctx)
	}
}

// Instantiate: one more instance of the compiled module (what the pool
// pays when every instance is busy), closed again.
func Instantiate(b *testing.B) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	noop := api.GoModuleFunc(func(context.Context, api.Module, []uint64) {})
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	if _, err := rt.NewHostModuleBuilder("webhook:retry-policy/clock@0.1.0").
		NewFunctionBuilder().WithGoModuleFunction(noop, nil, []api.ValueType{i64}).Export("now-ms").
		Instantiate(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := rt.NewHostModuleBuilder("webhook:retry-policy/budget-counter@0.1.0").
		NewFunctionBuilder().WithGoModuleFunction(noop, []api.ValueType{i32, i32, i64, i64, i32}, nil).Export("read").
		NewFunctionBuilder().WithGoModuleFunction(noop, []api.ValueType{i32, i32, i64, i64, i32, i32}, nil).Export("record-attempt").
		Instantiate(ctx); err != nil {
		b.Fatal(err)
	}
	compiled, err := rt.CompileModule(ctx, rp.CoreModule())
	if err != nil {
		b.Fatal(err)
	}
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mod, err := rt.InstantiateModule(ctx, compiled, cfg)
		if err != nil {
			b.Fatal(err)
		}
		_ = mod.Close(ctx)
	}
}

// NewEngine: rp.New end to end (imports, compile, first instance, ABI
// check) and Close.
func NewEngine(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		e, err := rp.New(ctx)
		if err != nil {
			b.Fatal(err)
		}
		_ = e.Close(ctx)
	}
}
