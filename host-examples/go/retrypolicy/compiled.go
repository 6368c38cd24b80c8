package retrypolicy

import (
	"context"
	"runtime"
)

// Compiled is a policy (and, for contract format 3, its health section)
// validated once by the component and kept there behind a handle (ABI 0.3,
// docs/abi-0.3.md): a step then lowers only the event's state, the
// outcome, the time and the store's reply. Build one per policy — per
// class of a loaded document (CompileDocument, CompileHealthDocument) —
// and keep it; Engine.Step keeps one per policy value for you.
//
// A handle belongs to the component instance that compiled it, and an
// Engine runs a pool of instances (and replaces them all on SwapArtifact),
// so a Compiled is compiled lazily in each instance it runs on and its
// handles are discarded when it is closed or when their instance closes
// (compiled_handles.go). A swapped-in artifact never sees a handle of the
// old one.
//
// Close releases the handles; a Compiled that is no longer referenced is
// closed by a cleanup (runtime.AddCleanup) as well, but call Close: the
// handles of an idle instance are discarded only when it is next used.
// Calls after Close return ErrCompiledClosed. A Compiled is safe for
// concurrent use.
type Compiled struct {
	s *compiledState
}

// Compile validates p and its health section (nil: format 2) and returns
// the compiled policy. A refused policy is a *PolicyError (the section's
// errors are invalid_document under "health.").
func (e *Engine) Compile(ctx context.Context, p Policy, health *Health) (*Compiled, error) {
	if health != nil {
		h := *health
		if h.Circuit != nil {
			c := *h.Circuit
			h.Circuit = &c
		}
		health = &h
	}
	s := &compiledState{e: e, policy: p, health: health, insts: make(map[*instance]uint32)}
	// Compile once now, so a bad policy is refused here and not at its first step.
	err := e.with(ctx, "compile", func(in *instance) error {
		_, err := in.handleFor(ctx, s)
		return err
	})
	if err != nil {
		s.close()
		return nil, err
	}
	c := &Compiled{s: s}
	runtime.AddCleanup(c, (*compiledState).close, s)
	return c, nil
}

// Close discards the handles (now in idle instances' queues, at once in
// none: each instance discards when next acquired). Idempotent.
func (c *Compiled) Close() error {
	c.s.close()
	return nil
}

// Policy is the compiled policy.
func (c *Compiled) Policy() Policy { return c.s.policy }

// Health is the compiled health section (nil: format 2). Do not modify it.
func (c *Compiled) Health() *Health { return c.s.health }

// with runs fn on a pooled instance with c's handle in it.
func (c *Compiled) with(ctx context.Context, op string, fn func(in *instance, h uint32) error) (err error) {
	in, err := c.s.e.acquire(ctx)
	if err != nil {
		return err
	}
	defer c.s.e.done(ctx, op, in, &err)
	h, err := in.handleFor(ctx, c.s)
	if err != nil {
		return err
	}
	return fn(in, h)
}

// Admit is the schedule a new event is admitted under at nowMs, with
// policyVersion (the document's version label) and class recorded; the
// policy hash covers the health section.
func (c *Compiled) Admit(ctx context.Context, class, policyVersion string, nowMs uint64) (a Admission, err error) {
	err = c.with(ctx, "admit-compiled", func(in *instance, h uint32) (err error) {
		a, err = in.callAdmitCompiled(ctx, h, class, policyVersion, nowMs)
		return err
	})
	return a, err
}

// Advance runs gates 1-5 after an attempt: Decided (the decision, and a
// call to make without waiting on its answer, if any), or NeedsStore
// (make the call, then Finish with its reply). probe: the attempt was sent
// as a granted probe (format 3 only).
func (c *Compiled) Advance(ctx context.Context, s DeliveryState, o AttemptOutcome, probe bool, nowMs uint64) (r AdvanceResult, err error) {
	err = c.with(ctx, "advance", func(in *instance, h uint32) (err error) {
		r, err = in.callAdvance(ctx, h, &s, &o, probe, nowMs)
		return err
	})
	return r, err
}

// Finish is the verdict once the store answered Advance's NeedsStore call
// (same inputs plus the reply; StoreReply{Unavailable: true} when the call
// failed): retry, hold (format 3 with hold_budget_refusals) or stop.
func (c *Compiled) Finish(ctx context.Context, s DeliveryState, o AttemptOutcome, nowMs uint64, reply StoreReply) (f Finished, err error) {
	err = c.with(ctx, "finish", func(in *instance, h uint32) (err error) {
		f, err = in.callFinish(ctx, h, &s, &o, nowMs, &reply)
		return err
	})
	return f, err
}

// Gate is the gate before every send (first attempt, retry, release):
// send, send as the probe, ask for a probe, hold or stop. view is the
// endpoint's health as the last store reply showed it (nil: none cached).
// Keep the returned pacer for the endpoint.
func (c *Compiled) Gate(ctx context.Context, ev GateEvent, view *HealthView, p Pacer, nowMs uint64) (a GateAnswer, err error) {
	err = c.with(ctx, "gate", func(in *instance, h uint32) (err error) {
		a, err = in.callGate(ctx, h, &ev, view, &p, nowMs)
		return err
	})
	return a, err
}

// AfterProbe is the gate once the probe call (CallFor(CallOpProbe))
// answered: granted, and the reply's view.
func (c *Compiled) AfterProbe(ctx context.Context, ev GateEvent, granted bool, view HealthView, p Pacer, nowMs uint64) (a GateAnswer, err error) {
	err = c.with(ctx, "after-probe", func(in *instance, h uint32) (err error) {
		a, err = in.callAfterProbe(ctx, h, &ev, granted, &view, &p, nowMs)
		return err
	})
	return a, err
}

// SettleWake judges a budget-held retry's wake once its reserve call
// (CallFor(CallOpReserve)) answered: send, hold again, or stop.
func (c *Compiled) SettleWake(ctx context.Context, w Wake, reply StoreReply, nowMs uint64) (v WakeVerdict, err error) {
	err = c.with(ctx, "settle-wake", func(in *instance, h uint32) (err error) {
		v, err = in.callSettleWake(ctx, h, &w, &reply, nowMs)
		return err
	})
	return v, err
}

// CallFor is a store call not tied to an attempt: CallOpReserve (a wake)
// or CallOpProbe (the gate asked for a probe; format 3 only).
func (c *Compiled) CallFor(ctx context.Context, op CallOp, endpointID string, nowMs uint64) (call StoreCall, err error) {
	err = c.with(ctx, "call-for", func(in *instance, h uint32) (err error) {
		call, err = in.callCallFor(ctx, h, op, endpointID, nowMs)
		return err
	})
	return call, err
}
