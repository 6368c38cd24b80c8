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
	err = e.with(ctx, opDecideWith, func(in *instance) error {
		trapped = in
		in.begin().i32(0xFFFF_FFF0) // a params pointer far outside memory
		_, err := in.call(ctx, opDecideWith)
		return err
	})
	var te *TrapError
	if !errors.As(err, &te) || te.Op != "decide-with" {
		t.Fatalf("want a *TrapError for decide-with, got %v", err)
	}
	if len(e.idle) != 0 {
		t.Fatal("the trapped instance went back to the pool")
	}
	if !trapped.mod.IsClosed() {
		t.Fatal("the trapped instance was not closed")
	}
	if c, err := e.ClassifyStatus(ctx, 503); err != nil || c != Retryable {
		t.Fatalf("the engine must keep working on a fresh instance: %v %v", c, err)
	}
}

func TestAPanicInTheGlueIsATrapErrorNotACrash(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	err = e.with(ctx, opPlan, func(*instance) error { panic("glue bug") })
	var te *TrapError
	if !errors.As(err, &te) {
		t.Fatalf("want a *TrapError, got %v", err)
	}
}

func TestTheModuleImportsExactlyTheHostFunctions(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, coreModule)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		clockModule + " now-ms":           "[] -> [i64]",
		counterModule + " read":           "[i32 i32 i64 i64 i32] -> []",
		counterModule + " record-attempt": "[i32 i32 i64 i64 i32 i32] -> []",
	}
	got := map[string]string{}
	for _, f := range compiled.ImportedFunctions() {
		mod, name, _ := f.Import()
		got[mod+" "+name] = sig(f.ParamTypes()) + " -> " + sig(f.ResultTypes())
	}
	if len(compiled.ImportedMemories()) != 0 {
		t.Error("the module imports a memory")
	}
	if len(got) != len(want) {
		t.Fatalf("imports %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("import %s: %q, want %q", k, got[k], v)
		}
	}
}

func sig(ts []uint8) string {
	s := "["
	for i, v := range ts {
		if i > 0 {
			s += " "
		}
		s += map[uint8]string{0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64"}[v]
	}
	return s + "]"
}

func TestGuestMemoryStaysFlatOverManyCalls(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, WithMaxIdle(1))
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
	round := func() {
		for _, o := range []Outcome{ResponseOutcome(503), ResponseOutcome(410), TransportErrorOutcome("read_timeout")} {
			if _, err := e.DecideWith(ctx, p, s, o, 10, &BudgetCounts{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Admit(ctx, doc, "a", 5); err != nil {
			t.Fatal(err)
		}
		_, _ = e.Plan(ctx, Backoff{}, 1, 1) // an error result: its strings must be freed too
	}
	round()
	size := func() uint32 { in := <-e.idle; defer func() { e.idle <- in }(); return in.mem.Size() }
	before := size()
	for i := 0; i < 5_000; i++ {
		round()
	}
	if after := size(); after != before {
		t.Fatalf("guest memory grew from %d to %d bytes over 25k calls: something is not freed", before, after)
	}
}
