package bench

import (
	"context"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The compiled step (ABI 0.3) beside the 0.2 path it replaced as
// Engine.Step's default: the same attempt, the same ConstantStore.

// Terminal is an attempt a gate decides (410 on attempt 3): no store call,
// one component call on the compiled path (advance), one on 0.2's (evaluate).
var Terminal = rp.ResponseOutcome(410)

// StepEvaluateSettle: the 0.2 path (evaluate, store call, settle), each
// call lowering the whole policy.
func StepEvaluateSettle(b *testing.B) { stepWith(b, Outcome, (*rp.Engine).StepEvaluateSettle, true) }

// StepDecided: Engine.Step (compiled) on an attempt a gate decides.
func StepDecided(b *testing.B) { stepWith(b, Terminal, (*rp.Engine).Step, false) }

// StepDecidedEvaluateSettle: the 0.2 path on the same attempt.
func StepDecidedEvaluateSettle(b *testing.B) {
	stepWith(b, Terminal, (*rp.Engine).StepEvaluateSettle, false)
}

type stepFn = func(*rp.Engine, context.Context, rp.BudgetStore, rp.Policy, rp.DeliveryState, rp.AttemptOutcome, uint64) (rp.StepResult, error)

func stepWith(b *testing.B, o rp.AttemptOutcome, step stepFn, retry bool) {
	e := engine(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := step(e, ctx, ConstantStore, Policy, State, o, NowMs)
		if retry {
			mustRetry(b, r.Decision, err)
		} else if err != nil || r.Decision.Stop == nil {
			b.Fatalf("want a stop, got %+v %v", r, err)
		}
	}
}

// CompiledStep: Compiled.Step on a Compiled the caller holds (no lookup of
// the engine's per-policy cache).
func CompiledStep(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	c, err := e.Compile(ctx, Policy, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := c.Step(ctx, ConstantStore, State, Outcome, NowMs)
		mustRetry(b, r.Decision, err)
	}
}

// AdmitDocument: Engine.Admit, the whole document (the dispatcher row's, one class) lowered per event.
func AdmitDocument(b *testing.B) { admitWith(b, (*rp.Engine).Admit) }

// AdmitClass: Engine.AdmitClass (admit-compiled on the class's cached compiled policy).
func AdmitClass(b *testing.B) { admitWith(b, (*rp.Engine).AdmitClass) }

func admitWith(b *testing.B, admit func(*rp.Engine, context.Context, rp.PolicyDocument, string, uint64) (rp.Admission, error)) {
	e := engine(b)
	ctx := context.Background()
	doc, err := e.LoadDocument(ctx, []byte(dispatchDocument))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := admit(e, ctx, doc, DispatchClass, NowMs); err != nil {
			b.Fatal(err)
		}
	}
}
