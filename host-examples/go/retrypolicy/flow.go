package retrypolicy

import "context"

// StepResult is one delivery step's outcome (Engine.Step).
type StepResult struct {
	// Decision is what to do with the event.
	Decision Decision
	// BudgetDisagreement: the store's verdict differed from the policy's
	// rule on the counts it judged (the store's verdict stands; count it).
	BudgetDisagreement bool
	// Store is the request made, if any.
	Store *StoreRequest
	// StoreErr is the store's error, if the call failed: a pending retry
	// then stopped as budget_unavailable; a first attempt's record that
	// failed changed nothing (log it).
	StoreErr error
}

// Step is the budget flow of one attempt: Evaluate, then at most ONE call
// to store, then Settle with its reply (skipped when a gate already
// decided: Settle would return that decision whatever the reply). The
// host computes nothing and judges nothing. When ctx ends during the store
// call, Step returns ctx's error instead of a budget_unavailable stop.
func (e *Engine) Step(ctx context.Context, store BudgetStore, p Policy, s DeliveryState, o AttemptOutcome, nowMs uint64) (StepResult, error) {
	st, err := e.Evaluate(ctx, p, s, o, nowMs)
	if err != nil {
		return StepResult{}, err
	}
	out := StepResult{Store: st.Store}
	var reply StoreReply
	if st.Store != nil {
		res, err := callStore(ctx, store, *st.Store, p.Budget, nowMs)
		if err != nil {
			if ctx.Err() != nil {
				return StepResult{}, ctx.Err()
			}
			out.StoreErr = err
			reply.Unavailable = true
		} else {
			reply.Answered = &res
		}
	}
	if st.Decision != nil {
		out.Decision = *st.Decision
		return out, nil
	}
	if st.Store == nil {
		reply.Unavailable = true // unreachable per the contract: only the budget remains means a request
	}
	settled, err := e.Settle(ctx, p, s, o, nowMs, reply)
	if err != nil {
		return StepResult{}, err
	}
	out.Decision, out.BudgetDisagreement = settled.Decision, settled.BudgetDisagreement
	return out, nil
}
