package retrypolicy

import (
	"context"
	"errors"
	"fmt"
)

// Step is the budget flow of one attempt, the default typed step: the
// policy p compiled once (kept per policy value on the engine, see
// compiledFor), then Advance — ONE call into the component when a gate
// decides (plus the record of a first attempt, made before returning) —
// or Advance, ONE call to store, and Finish with its reply. The host
// computes nothing and judges nothing. When ctx ends during the store
// call, Step returns ctx's error instead of a budget_unavailable stop.
func (e *Engine) Step(ctx context.Context, store BudgetStore, p Policy, s DeliveryState, o AttemptOutcome, nowMs uint64) (StepResult, error) {
	c, err := e.compiledFor(ctx, p)
	if err != nil {
		return StepResult{}, err
	}
	return c.Step(ctx, store, s, o, nowMs)
}

// ErrHealthStep is returned by Compiled.Step for a policy with a health
// section: its calls (report, health fields) need a CallStore, and its
// verdict may be a hold (drive Advance and Finish yourself).
var ErrHealthStep = errors.New("retrypolicy: Step takes a format-2 policy; a policy with health needs Advance/Finish and a CallStore")

// Step is Engine.Step on c (format 2 only: ErrHealthStep otherwise). The
// store calls map 1:1 onto the 0.2 store requests (RequestOf), so every
// BudgetStore answers them unchanged; a KeyedBudgetStore also gets the
// call's key.
func (c *Compiled) Step(ctx context.Context, store BudgetStore, s DeliveryState, o AttemptOutcome, nowMs uint64) (StepResult, error) {
	if c.s.health != nil {
		return StepResult{}, ErrHealthStep
	}
	adv, err := c.Advance(ctx, s, o, false, nowMs)
	if err != nil {
		return StepResult{}, err
	}
	var out StepResult
	if d := adv.Decided; d != nil {
		out.Decision = d.Decision
		if d.Call != nil { // the record of a first attempt: its answer changes nothing
			if _, err := c.call(ctx, store, *d.Call, nowMs, &out); err != nil {
				return StepResult{}, err
			}
		}
		return out, nil
	}
	if adv.NeedsStore == nil {
		return StepResult{}, &TrapError{Op: "advance", Err: errors.New("an advance-result with no case set")}
	}
	reply, err := c.call(ctx, store, *adv.NeedsStore, nowMs, &out)
	if err != nil {
		return StepResult{}, err
	}
	fin, err := c.Finish(ctx, s, o, nowMs, reply)
	if err != nil {
		return StepResult{}, err
	}
	switch v := fin.Verdict; {
	case v.Retry != nil:
		out.Decision = Decision{Retry: v.Retry}
	case v.Stop != nil:
		out.Decision = Decision{Stop: v.Stop}
	default: // a hold needs a health section, which Step refused above
		return StepResult{}, &TrapError{Op: "finish", Err: fmt.Errorf("a format-2 policy's verdict is neither retry nor stop: %+v", v)}
	}
	out.BudgetDisagreement = fin.BudgetDisagreement
	return out, nil
}

// call makes call on store as its 0.2 request (recorded in out.Store)
// and returns the reply to finish with; a failed store call is recorded
// in out.StoreErr and the reply is unavailable. The error is ctx's when
// ctx ended during the call.
func (c *Compiled) call(ctx context.Context, store BudgetStore, call StoreCall, nowMs uint64, out *StepResult) (StoreReply, error) {
	req, err := RequestOf(call)
	if err != nil {
		return StoreReply{}, &TrapError{Op: "advance", Err: err}
	}
	out.Store = &req
	res, err := callStoreKeyed(ctx, store, call.Key, req, call.Budget, nowMs)
	if err != nil {
		if ctx.Err() != nil {
			return StoreReply{}, ctx.Err()
		}
		out.StoreErr = err
		return StoreReply{Unavailable: true}, nil
	}
	return StoreReply{Answered: &res}, nil
}
