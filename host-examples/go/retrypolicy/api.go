package retrypolicy

import "context"

// The planning and classification operations of the WIT interface
// `policy`: each lowers its arguments (generated code), calls the guest and
// lifts the answer. A refused input is a *PolicyError; a trap a *TrapError.

// ABIVersion returns the module's abi-version (3 for this host).
func (e *Engine) ABIVersion(ctx context.Context) (v uint32, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "abi-version", in, &err)
	v, err = in.callABIVersion(ctx)
	return v, err
}

// Plan derives max attempts and the schedule from a window.
func (e *Engine) Plan(ctx context.Context, b Backoff, windowMs uint64, hardCap uint32) (s Schedule, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "plan", in, &err)
	s, err = in.callPlan(ctx, &b, windowMs, hardCap)
	return s, err
}

// Delay is the jittered delay of retry retryIndex (0-based, <= 99) for an event.
func (e *Engine) Delay(ctx context.Context, b Backoff, eventID string, retryIndex uint32) (ms uint64, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "delay", in, &err)
	ms, err = in.callDelay(ctx, &b, eventID, retryIndex)
	return ms, err
}

// ClassifyStatus classifies an HTTP status (100..=599, else invalid_status).
func (e *Engine) ClassifyStatus(ctx context.Context, status uint16) (c OutcomeClass, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "classify-status", in, &err)
	c, err = in.callClassifyStatus(ctx, status)
	return c, err
}

// ClassifyError classifies a transport error kind (unknown kinds are terminal).
func (e *Engine) ClassifyError(ctx context.Context, kind string) (c OutcomeClass, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "classify-error", in, &err)
	c, err = in.callClassifyError(ctx, kind)
	return c, err
}

// BudgetAllows reports whether one more retry fits the budget, given the counts.
func (e *Engine) BudgetAllows(ctx context.Context, b Budget, nowMs uint64, counts BudgetCounts) (ok bool, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "budget-allows", in, &err)
	ok, err = in.callBudgetAllows(ctx, &b, nowMs, &counts)
	return ok, err
}

// LoadDocument parses and validates a JSON policy document (at most 1 MiB).
func (e *Engine) LoadDocument(ctx context.Context, json []byte) (d PolicyDocument, err error) {
	text := string(json)
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "load-document", in, &err)
	d, err = in.callLoadDocument(ctx, text)
	return d, err
}

// Admit returns the schedule a new event of class is admitted under at
// nowMs (persist it with the event). The component re-validates the
// document, since a host may have built or altered it.
func (e *Engine) Admit(ctx context.Context, d PolicyDocument, class string, nowMs uint64) (a Admission, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "admit", in, &err)
	a, err = in.callAdmit(ctx, &d, class, nowMs)
	return a, err
}
