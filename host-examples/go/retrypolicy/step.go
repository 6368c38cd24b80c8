package retrypolicy

import "context"

// The delivery step of contract 0.2: Evaluate names the one store request
// an attempt needs, the host makes it, Settle turns the reply into the
// decision. Engine.Step runs the three.

// Evaluate runs gates 1-5 after an attempt and names the one store request
// the attempt needs (Step.Store; nil: nothing to count or reserve).
// Step.Decision is set when a gate decided; nil when only the budget remains.
func (e *Engine) Evaluate(ctx context.Context, p Policy, s DeliveryState, o AttemptOutcome, nowMs uint64) (Step, error) {
	return onInstance(ctx, e, nil, "evaluate", func(in *instance) (Step, error) { return in.callEvaluate(ctx, &p, &s, &o, nowMs) })
}

// Settle is the decision once the store answered Evaluate's request (same
// inputs plus the reply; StoreReply{Unavailable: true} when the call
// failed). The store's verdict stands; BudgetDisagreement reports a store
// whose rule differs from the policy's on the same counts.
func (e *Engine) Settle(ctx context.Context, p Policy, s DeliveryState, o AttemptOutcome, nowMs uint64, reply StoreReply) (Settlement, error) {
	return onInstance(ctx, e, nil, "settle", func(in *instance) (Settlement, error) { return in.callSettle(ctx, &p, &s, &o, nowMs, &reply) })
}

// ParseRetryAfter reads a Retry-After header value (as received) as
// milliseconds from nowMs; ok is false when it is not usable.
func (e *Engine) ParseRetryAfter(ctx context.Context, header string, nowMs uint64) (ms uint64, ok bool, err error) {
	_, err = onInstance(ctx, e, nil, "parse-retry-after", func(in *instance) (_ struct{}, err error) {
		ms, ok, err = in.callParseRetryAfter(ctx, header, nowMs)
		return
	})
	return ms, ok, err
}

// StoreKey is the key a shared store files the request's endpoint counts
// under (one key per endpoint and bucket width).
func (e *Engine) StoreKey(ctx context.Context, r StoreRequest) (string, error) {
	return onInstance(ctx, e, nil, "store-key", func(in *instance) (string, error) { return in.callStoreKey(ctx, &r) })
}

// StoreApply is an in-memory store's answer: r applied to what the store
// holds for that endpoint and width (write Applied.Held back).
func (e *Engine) StoreApply(ctx context.Context, r StoreRequest, b Budget, nowMs uint64, held HeldBuckets) (a Applied, err error) {
	in, err := e.acquireOn(ctx, nil, true)
	if err != nil {
		return
	}
	defer e.done(ctx, "store-apply", in, &err)
	return in.callStoreApply(ctx, &r, &b, nowMs, &held)
}

// Decide is the whole step inside the component: it reads the Engine's
// Clock and makes at most one call to its BudgetStore through the imports.
// It cannot report a BudgetDisagreement; dispatchers that count those use
// Step. When ctx ends during the call, Decide returns ctx's error (a
// caller's deadline is not a store outage and must not dead-letter).
func (e *Engine) Decide(ctx context.Context, p Policy, s DeliveryState, o AttemptOutcome) (Decision, error) {
	d, err := onInstance(ctx, e, nil, "decide", func(in *instance) (Decision, error) { return in.callDecide(ctx, &p, &s, &o) })
	if err == nil && ctx.Err() != nil {
		return Decision{}, ctx.Err()
	}
	return d, err
}
