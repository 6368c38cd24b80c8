package retrypolicy

import "context"

// The functions of contract format 3 (endpoint health, docs/health.md) that
// need no compiled policy: a document's loader, an in-memory store's rule,
// and the pieces the vectors test alone.

// LoadHealthDocument parses and validates a format-3 document (format 2
// with optional health sections, at most 1 MiB): each class with its
// effective section (its own, else the document's; nil: format 2), its
// policy hash and the words the section adds to it. Compile its classes
// with CompileHealthDocument.
func (e *Engine) LoadHealthDocument(ctx context.Context, json []byte) (d HealthDocument, err error) {
	text := string(json)
	err = e.with(ctx, "load-health-document", func(in *instance) (err error) {
		d, err = in.callLoadHealthDocument(ctx, text)
		return err
	})
	return d, err
}

// ApplyCall is an in-memory store's answer to call on what it holds for
// the call's key (the Redis script's rule; format 3 when the call has
// health fields): write CallApplied.Held back under the same lock.
// MemoryCallStore does that for you.
func (e *Engine) ApplyCall(ctx context.Context, call StoreCall, nowMs uint64, held HeldHealth) (a CallApplied, err error) {
	in, err := e.acquireOn(ctx, nil, true)
	if err != nil {
		return
	}
	defer e.done(ctx, "apply-call", in, &err)
	a, err = in.callApplyCall(ctx, &call, nowMs, &held)
	return a, err
}

// Pace is release pacing alone (what Gate runs for a held event): send
// (a token was spent) or wait until an instant. Keep the returned pacer.
func (e *Engine) Pace(ctx context.Context, r Release, p Pacer, nowMs uint64) (out Paced, err error) {
	err = e.with(ctx, "pace", func(in *instance) (err error) {
		out, err = in.callPace(ctx, &r, &p, nowMs)
		return err
	})
	return out, err
}

// NormalPerS is a replica's admission rate to an endpoint (per second)
// from its two newest buckets of admissions (Pacer.NormalPerS).
func (e *Engine) NormalPerS(ctx context.Context, b Budget, nowMs, current, previous uint64) (rate float64, err error) {
	err = e.with(ctx, "normal-per-s", func(in *instance) (err error) {
		rate, err = in.callNormalPerS(ctx, &b, nowMs, current, previous)
		return err
	})
	return rate, err
}

// HealthOutcomeOf is the health class of an outcome (what an attempt's
// store call carries): success (2xx), failure (retryable) or none.
func (e *Engine) HealthOutcomeOf(ctx context.Context, o AttemptOutcome) (h HealthOutcome, err error) {
	err = e.with(ctx, "health-outcome-of", func(in *instance) (err error) {
		h, err = in.callHealthOutcomeOf(ctx, &o)
		return err
	})
	return h, err
}

// PauseUntil is the pause an outcome asks for: nowMs + min(Retry-After,
// PauseMaxMs) for a 429/503 carrying one, else 0.
func (e *Engine) PauseUntil(ctx context.Context, h Health, o AttemptOutcome, nowMs uint64) (until uint64, err error) {
	err = e.with(ctx, "pause-until", func(in *instance) (err error) {
		until, err = in.callPauseUntil(ctx, &h, &o, nowMs)
		return err
	})
	return until, err
}
