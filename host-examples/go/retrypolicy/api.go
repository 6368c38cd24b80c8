package retrypolicy

import (
	"context"
	"fmt"
)

// The operations of the WIT interface `policy`. Each validates only what
// the canonical ABI cannot carry (validate.go), lowers its arguments, calls
// the guest and lifts the answer. A refused input is a *PolicyError; a
// guest trap is a *TrapError.

// ABIVersion returns the module's abi-version (1 for this host).
func (e *Engine) ABIVersion(ctx context.Context) (v uint32, err error) {
	err = e.with(ctx, opABIVersion, func(in *instance) error {
		in.begin()
		r, err := in.call(ctx, opABIVersion)
		v = uint32(r)
		return err
	})
	return v, err
}

// Plan derives max attempts and the schedule from a window.
func (e *Engine) Plan(ctx context.Context, b Backoff, windowMs uint64, hardCap uint32) (s Schedule, err error) {
	if err := checkJitter("backoff.jitter", b.Jitter); err != nil {
		return s, err
	}
	err = e.with(ctx, opPlan, func(in *instance) error {
		f := in.begin()
		f.backoff(b)
		f.i64(windowMs)
		f.i32(hardCap)
		ret, err := in.call(ctx, opPlan)
		if err != nil {
			return err
		}
		return in.liftReturn(ctx, opPlan, ret, sizeResultSchedule, func(r []byte) (err error) {
			if ok, err := in.liftResult(r, offResultPayload8); !ok {
				return err
			}
			s, err = in.liftSchedule(r[offResultPayload8:])
			return err
		})
	})
	return s, err
}

// Delay is the jittered delay of retry retryIndex (0-based) for an event.
func (e *Engine) Delay(ctx context.Context, b Backoff, eventID string, retryIndex uint32) (delayMs uint64, err error) {
	if err := checkJitter("backoff.jitter", b.Jitter); err != nil {
		return 0, err
	}
	if err := checkString("event_id", eventID); err != nil {
		return 0, err
	}
	err = e.with(ctx, opDelay, func(in *instance) error {
		ptr, n, err := in.lowerString(ctx, eventID)
		if err != nil {
			return err
		}
		f := in.begin()
		f.backoff(b)
		f.i32(ptr)
		f.i32(n)
		f.i32(retryIndex)
		ret, err := in.call(ctx, opDelay)
		if err != nil {
			return err
		}
		return in.liftReturn(ctx, opDelay, ret, sizeResultU64, func(r []byte) error {
			if ok, err := in.liftResult(r, offResultPayload8); !ok {
				return err
			}
			delayMs = le.Uint64(r[offResultPayload8:])
			return nil
		})
	})
	return delayMs, err
}

// ClassifyStatus classifies an HTTP status (100..=599, else invalid_status).
func (e *Engine) ClassifyStatus(ctx context.Context, status uint16) (c OutcomeClass, err error) {
	err = e.with(ctx, opClassifyStatus, func(in *instance) error {
		in.begin().i32(uint32(status))
		ret, err := in.call(ctx, opClassifyStatus)
		if err != nil {
			return err
		}
		return in.liftReturn(ctx, opClassifyStatus, ret, sizeResultSmall, func(r []byte) error {
			if ok, err := in.liftResult(r, offResultPayload4); !ok {
				return err
			}
			v, err := liftTag(r, offResultPayload4, uint8(len(outcomeClassNames)), "outcome-class")
			c = OutcomeClass(v)
			return err
		})
	})
	return c, err
}

// ClassifyError classifies a transport error kind (unknown kinds are terminal).
func (e *Engine) ClassifyError(ctx context.Context, kind string) (c OutcomeClass, err error) {
	if err := checkString("error_kind", kind); err != nil {
		return c, err
	}
	err = e.with(ctx, opClassifyError, func(in *instance) error {
		ptr, n, err := in.lowerString(ctx, kind)
		if err != nil {
			return err
		}
		f := in.begin()
		f.i32(ptr)
		f.i32(n)
		r, err := in.call(ctx, opClassifyError)
		if err != nil {
			return err
		}
		if uint32(r) >= uint32(len(outcomeClassNames)) {
			return abiErrorf("outcome-class discriminant %d out of range", uint32(r))
		}
		c = OutcomeClass(r)
		return nil
	})
	return c, err
}

// BudgetAllows reports whether one more retry fits the budget, given the counts.
func (e *Engine) BudgetAllows(ctx context.Context, b Budget, nowMs uint64, counts BudgetCounts) (allows bool, err error) {
	err = e.with(ctx, opBudgetAllows, func(in *instance) error {
		f := in.begin()
		f.budget(b)
		f.i64(nowMs)
		f.i64(counts.Current.Total)
		f.i64(counts.Current.Retries)
		f.i64(counts.Previous.Total)
		f.i64(counts.Previous.Retries)
		ret, err := in.call(ctx, opBudgetAllows)
		if err != nil {
			return err
		}
		return in.liftReturn(ctx, opBudgetAllows, ret, sizeResultSmall, func(r []byte) (err error) {
			if ok, err := in.liftResult(r, offResultPayload4); !ok {
				return err
			}
			allows, err = liftBool(r, offResultPayload4)
			return err
		})
	})
	return allows, err
}

// LoadDocument parses and validates a JSON policy document.
func (e *Engine) LoadDocument(ctx context.Context, json []byte) (d PolicyDocument, err error) {
	text := string(json)
	if err := checkString("json", text); err != nil {
		return d, err
	}
	err = e.with(ctx, opLoadDocument, func(in *instance) error {
		ptr, n, err := in.lowerString(ctx, text)
		if err != nil {
			return err
		}
		f := in.begin()
		f.i32(ptr)
		f.i32(n)
		ret, err := in.call(ctx, opLoadDocument)
		if err != nil {
			return err
		}
		return in.liftReturn(ctx, opLoadDocument, ret, sizeResultSmall, func(r []byte) (err error) {
			if ok, err := in.liftResult(r, offResultPayload4); !ok {
				return err
			}
			d, err = in.liftDocument(r[offResultPayload4:])
			return err
		})
	})
	return d, err
}

// Admit returns the schedule a new event of class is admitted under at
// nowMs (persist it with the event). The document is re-validated by the
// component, since a host may have built or altered it.
func (e *Engine) Admit(ctx context.Context, d PolicyDocument, class string, nowMs uint64) (a Admission, err error) {
	if err := checkDocument(d); err != nil {
		return a, err
	}
	if err := checkString("class", class); err != nil {
		return a, err
	}
	err = e.with(ctx, opAdmit, func(in *instance) error {
		f := in.begin()
		if err := in.lowerDocument(ctx, f, d); err != nil {
			return err
		}
		ptr, n, err := in.lowerString(ctx, class)
		if err != nil {
			return err
		}
		f.i32(ptr)
		f.i32(n)
		f.i64(nowMs)
		ret, err := in.call(ctx, opAdmit)
		if err != nil {
			return err
		}
		return in.liftReturn(ctx, opAdmit, ret, sizeResultAdmission, func(r []byte) (err error) {
			if ok, err := in.liftResult(r, offResultPayload8); !ok {
				return err
			}
			a, err = in.liftAdmission(r[offResultPayload8:])
			return err
		})
	})
	return a, err
}

// Decide decides after an attempt, reading the Engine's Clock, and its
// BudgetCounter only when every other gate allows a retry; it records the
// retry it schedules (a reservation), so do not record it again. First
// attempts are recorded with RecordFirstAttempt.
//
// A counter error makes the decision budget_unavailable. But when ctx
// ends during the call (a counter waiting on its store gives up), Decide
// returns ctx's error instead: a caller's deadline is not a store outage,
// and must not dead-letter the event.
func (e *Engine) Decide(ctx context.Context, p Policy, s DeliveryState, o Outcome) (Decision, error) {
	if err := checkDecide(p, s, o); err != nil {
		return Decision{}, err
	}
	d, err := e.decide(ctx, opDecide, sizeDecideParams, p, s, o, 0, nil)
	if err == nil && ctx.Err() != nil {
		return Decision{}, fmt.Errorf("retrypolicy: decide: %w", ctx.Err())
	}
	return d, err
}

// DecideWith is the pure decision: nowMs and the budget counts are given
// (counts nil = the store could not be read, which fails the budget
// closed). It records nothing.
func (e *Engine) DecideWith(ctx context.Context, p Policy, s DeliveryState, o Outcome, nowMs uint64, counts *BudgetCounts) (Decision, error) {
	if err := checkDecide(p, s, o); err != nil {
		return Decision{}, err
	}
	return e.decide(ctx, opDecideWith, sizeDecideWithParams, p, s, o, nowMs, counts)
}

func (e *Engine) decide(ctx context.Context, o op, size uint32, p Policy, s DeliveryState, out Outcome,
	nowMs uint64, counts *BudgetCounts) (d Decision, err error) {
	err = e.with(ctx, o, func(in *instance) error {
		b := in.scratch[:size]
		clear(b)
		putPolicy(b, offDecidePolicy, p)
		if err := in.putState(ctx, b, offDecideState, s); err != nil {
			return err
		}
		if err := in.putOutcome(ctx, b, offDecideOutcome, out); err != nil {
			return err
		}
		if o == opDecideWith {
			le.PutUint64(b[offDecideWithNow:], nowMs)
			if counts != nil {
				b[offDecideWithCounts] = 1
				putCounts(b, offDecideWithCounts+8, *counts)
			}
		}
		ret, err := in.callParamsArea(ctx, o, size)
		if err != nil {
			return err
		}
		return in.liftReturn(ctx, o, ret, sizeResultDecision, func(r []byte) (err error) {
			if ok, err := in.liftResult(r, offResultPayload8); !ok {
				return err
			}
			d, err = in.liftDecision(r[offResultPayload8:])
			return err
		})
	})
	return d, err
}

// RecordFirstAttempt counts an event's first attempt at nowMs in the
// Engine's BudgetCounter (retries are recorded by Decide). The WIT has no
// function for it, so the bucket is nowMs / budget.WindowMs here; the
// budget is validated by the component first (invalid_budget).
func (e *Engine) RecordFirstAttempt(ctx context.Context, b Budget, endpointID string, nowMs uint64) error {
	if _, err := e.BudgetAllows(ctx, b, nowMs, BudgetCounts{}); err != nil {
		return err
	}
	return e.counter.RecordAttempt(ctx, endpointID, b.WindowMs, nowMs/b.WindowMs, false)
}
