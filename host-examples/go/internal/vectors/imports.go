package vectors

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Imports are the clock and the budget store of a conformance engine
// (New(ctx, imports.Options()...)): with them, every decide case also runs
// through the imports-driven Decide — one call into the component, which
// reads the case's now_ms from the clock import and asks the store import
// once — and must give what decide-with gives. The store answers as a
// synchronous store would, judging the case's budget_counts (none: the
// store fails, so a pending retry fails closed). Cases run one at a time.
type Imports struct {
	mu     sync.Mutex
	nowMs  uint64
	counts *rp.BudgetCounts
	allows bool
	calls  int
	bad    string // what the last call did wrong, if anything
}

// Options are the engine options that wire im as the imports.
func (im *Imports) Options() []rp.Option {
	return []rp.Option{rp.WithClock(rp.ClockFunc(im.now)), rp.WithBudgetStore(im)}
}

// WithImports marks ctx: decide cases run through im as well.
func WithImports(ctx context.Context, im *Imports) context.Context {
	return context.WithValue(ctx, importsKey{}, im)
}

type importsKey struct{}

func importsFrom(ctx context.Context) *Imports {
	im, _ := ctx.Value(importsKey{}).(*Imports)
	return im
}

func (im *Imports) now() uint64 {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.nowMs
}

// Call is the budget-store import: one atomic answer from the case's counts.
func (im *Imports) Call(_ context.Context, r rp.StoreRequest, _ rp.Budget, nowMs uint64) (rp.Reservation, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.calls++
	if nowMs != im.nowMs {
		im.bad = fmt.Sprintf("the store was asked at now_ms %d, the clock said %d", nowMs, im.nowMs)
	}
	if im.counts == nil {
		return rp.Reservation{}, errors.New("the case's store is unreadable (budget_counts null)")
	}
	return rp.Reservation{Reserved: im.allows && r.Op != rp.StoreOpRecord, Counts: *im.counts}, nil
}

// decideThroughImports runs one decide case through Decide and compares
// it with want, decide-with's answer (a result or {"error": CODE}).
func (im *Imports) decideThroughImports(ctx context.Context, e *rp.Engine, in DecideInput, want map[string]any) error {
	allows := false
	if in.Counts != nil {
		var err error
		if allows, err = e.BudgetAllows(ctx, in.Policy.Budget, in.NowMs, *in.Counts); err != nil {
			allows = false // an invalid budget: decide refuses the policy before any store call
		}
	}
	im.mu.Lock()
	im.nowMs, im.counts, im.allows, im.calls, im.bad = in.NowMs, in.Counts, allows, 0, ""
	im.mu.Unlock()
	d, err := e.Decide(ctx, in.Policy, in.State, in.Outcome)
	var got map[string]any
	if err != nil {
		if got, err = refused(err); err != nil {
			return fmt.Errorf("decide through the imports: %w", err)
		}
	} else {
		got = decisionJSON(d)
	}
	im.mu.Lock()
	calls, bad := im.calls, im.bad
	im.mu.Unlock()
	switch {
	case bad != "":
		return fmt.Errorf("decide through the imports: %s", bad)
	case calls > 1:
		return fmt.Errorf("decide through the imports called the store %d times (at most once)", calls)
	case !reflect.DeepEqual(got, want):
		return fmt.Errorf("decide through the imports gave %v; decide-with gave %v", got, want)
	}
	return nil
}
