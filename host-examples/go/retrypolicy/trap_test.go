package retrypolicy

import (
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero"
)

func TestAGuestTrapIsATrapErrorAndTheInstanceIsDiscarded(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, WithMaxIdle(1))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	var trapped *instance
	err = e.with(ctx, "evaluate", func(in *instance) error {
		trapped = in
		s := in.stack[:1]
		s[0] = 0xFFFF_FFF0 // a params pointer far outside memory
		return in.invoke(ctx, fnEvaluate, s)
	})
	var te *TrapError
	if !errors.As(err, &te) || te.Op != "evaluate" {
		t.Fatalf("want a *TrapError for evaluate, got %v", err)
	}
	if e.cur.Load().pool.len() != 0 || !trapped.mod.IsClosed() {
		t.Fatal("the trapped instance was not discarded")
	}
	if c, err := e.ClassifyStatus(ctx, 503); err != nil || c != OutcomeClassRetryable {
		t.Fatalf("the engine must keep working on a fresh instance: %v %v", c, err)
	}
}

func TestAReturnPointerOutsideMemoryIsATrapErrorNotAPanic(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, WithMaxIdle(1))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	for _, ptr := range []uint32{0xFFFF_FFF0, 1 << 30} {
		err = e.with(ctx, "evaluate", func(in *instance) error {
			_, err := in.view(ptr, 120)
			return err
		})
		var te *TrapError
		if !errors.As(err, &te) {
			t.Fatalf("%#x: want a *TrapError, got %v", ptr, err)
		}
		// a list whose length overflows
		err = e.with(ctx, "plan", func(in *instance) error {
			_, err := in.listView(0, 1<<31, 8, 8)
			return err
		})
		if !errors.As(err, &te) {
			t.Fatalf("want a *TrapError for an overflowing list, got %v", err)
		}
	}
}

func TestAPanicInTheGlueIsATrapErrorNotACrash(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	err = e.with(ctx, "plan", func(*instance) error { panic("glue bug") })
	var te *TrapError
	if !errors.As(err, &te) {
		t.Fatalf("want a *TrapError, got %v", err)
	}
}

func TestTheModuleImportsExactlyTheGeneratedHostFunctions(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if err := instantiateImports(ctx, rt, hostImports{}); err != nil {
		t.Fatal(err)
	}
	// instantiating checks every import's name and signature
	compiled, err := rt.CompileModule(ctx, embeddedCore(t))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		t.Fatalf("the generated imports do not satisfy the module: %v", err)
	}
	_ = mod.Close(ctx)
	if len(compiled.ImportedFunctions()) != 2 || len(compiled.ImportedMemories()) != 0 {
		t.Fatalf("imports: %d functions, %d memories", len(compiled.ImportedFunctions()), len(compiled.ImportedMemories()))
	}
}

func TestGuestMemoryStaysFlatOverManyCalls(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, WithMaxIdle(1), WithClock(ClockFunc(func() uint64 { return 10 })))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	p := Policy{Backoff: Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: JitterFull}, WindowMs: 900000, HardCap: 16,
		Budget: Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 50, Sliding: true}}
	s := DeliveryState{EventID: "evt_with_a_longer_identifier_0123456789", EndpointID: "ep_42", Attempt: 2, MaxAttempts: 13, FirstAttemptedAtMs: 1}
	doc, err := e.LoadDocument(ctx, []byte(`{"classes": {"a": {"window_ms": 60000, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 8000}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	failing := BudgetStoreFunc(func(context.Context, StoreRequest, Budget, uint64) (Reservation, error) {
		return Reservation{}, errors.New("a store error string the guest must free")
	})
	round := func() {
		for _, o := range []AttemptOutcome{ResponseOutcome(503), ResponseOutcome(410), TransportErrorOutcome("read_timeout")} {
			if _, err := e.Settle(ctx, p, s, o, 10, StoreReply{Answered: &Reservation{}}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Step(ctx, failing, p, s, o, 10); err != nil {
				t.Fatal(err)
			}
		}
		e.store = failing
		if _, err := e.Decide(ctx, p, s, ResponseOutcome(503)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Admit(ctx, doc, "a", 5); err != nil {
			t.Fatal(err)
		}
		_, _ = e.Plan(ctx, Backoff{}, 1, 1) // an error result: its strings must be freed too
	}
	round()
	size := func() (n uint32) {
		_ = e.with(ctx, "size", func(in *instance) error { n = in.mem.Size(); return nil })
		return n
	}
	before := size()
	for i := 0; i < 3_000; i++ {
		round()
	}
	if after := size(); after != before {
		t.Fatalf("guest memory grew from %d to %d bytes: something is not freed", before, after)
	}
}

func TestAnInputRefusedAfterTheGuestAllocatedReplacesTheInstance(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, WithMaxIdle(1))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	p := Policy{Backoff: Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: JitterFull}, WindowMs: 900000, HardCap: 16,
		Budget: Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 50, Sliding: true}}
	// the event id is copied into the guest before the endpoint id is refused
	s := DeliveryState{EventID: "evt_1", EndpointID: "\xff", Attempt: 1, MaxAttempts: 3}
	var first *instance
	_ = e.with(ctx, "peek", func(in *instance) error { first = in; return nil })
	_, err = e.Evaluate(ctx, p, s, ResponseOutcome(503), 10)
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Code != ErrorCodeInvalidInput || pe.Field != "state.endpoint_id" {
		t.Fatalf("want invalid_input at state.endpoint_id, got %v", err)
	}
	if !first.mod.IsClosed() {
		t.Fatal("the instance holding the leaked copy was kept")
	}
	// refused before any allocation: the instance stays
	var second *instance
	_ = e.with(ctx, "peek", func(in *instance) error { second = in; return nil })
	_, err = e.Evaluate(ctx, p, DeliveryState{EventID: "\xff"}, ResponseOutcome(503), 10)
	if !errors.As(err, &pe) || second.mod.IsClosed() {
		t.Fatalf("an input refused before any allocation: %v (closed: %v)", err, second.mod.IsClosed())
	}
}

func TestDecideOnTheDefaultMemoryStoreReusesItsInstances(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, WithMaxIdle(1), WithClock(ClockFunc(func() uint64 { return 10 })))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	p := Policy{Backoff: Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: JitterFull}, WindowMs: 900000, HardCap: 16,
		Budget: Budget{Ratio: 1, WindowMs: 60000, MinSample: 50, Sliding: true}}
	s := DeliveryState{EventID: "evt_1", EndpointID: "ep_42", Attempt: 2, MaxAttempts: 13, FirstAttemptedAtMs: 1}
	var first *instance
	for i := 0; i < 20; i++ {
		if _, err := e.Decide(ctx, p, s, ResponseOutcome(503)); err != nil {
			t.Fatal(err)
		}
		e.cur.Load().pool.mu.Lock()
		cur := e.cur.Load().pool.idle[len(e.cur.Load().pool.idle)-1]
		e.cur.Load().pool.mu.Unlock()
		if first == nil {
			first = cur
		} else if cur != first {
			t.Fatalf("decide %d ran on a new instance: the nested store-apply churns the pool", i)
		}
	}
}
