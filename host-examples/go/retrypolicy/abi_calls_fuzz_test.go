package retrypolicy

import (
	"errors"
	"math"
	"testing"
)

// FuzzEveryCallLowersItsParamsAndLiftsItsAnswer runs each export's whole
// generated call against the fake guest: fuzzer-derived params are
// lowered (read back with the test's decoder from what the fake export
// received: the params tuple in memory, or the flat values), and the
// answer, stored by the test's encoder as the guest would (ok or a
// policy-error, through the return area or flat), lifts equal.
func FuzzEveryCallLowersItsParamsAndLiftsItsAnswer(f *testing.F) {
	g := newFakeGuest(f)
	f.Add([]byte{}, uint8(0))
	f.Add([]byte("\x02evt_1\x05ep_42\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"), uint8(1))
	f.Add(append([]byte{0xff, 0x10, 0x00, 0xfe, 0x01, 0x01}, make([]byte, 200)...), uint8(0xfe))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		g.load(nil)
		r := &fz{b: data}
		for i, c := range callChecks {
			if which == 0xff || int(which)%len(callChecks) == i || which&0x80 != 0 {
				g.next = fakeHeap
				c(t, g, r)
			}
		}
	})
}

// answer stores a result<T, policy-error> (when errCase, the error) in a
// fresh return area of size bytes, T at payload, for the fake to return.
func (g *fakeGuest) answerResult(size, payload uint32, errCase bool, pe *PolicyError, enc func(uint32)) {
	ret, _ := g.area(size)
	if errCase {
		g.w8(ret, 1)
		g.encPolicyError(ret+payload, pe) // both cases at one offset

	} else {
		enc(ret + payload)
	}
	g.ret = uint64(ret)
}

// answered checks a call's answer: the T (want), or the *PolicyError.
func answered[T any](t *testing.T, what string, errCase, bad bool, want T, pe PolicyError, got T, err error) {
	t.Helper()
	if !errCase || bad {
		lifted(t, what, bad, want, got, err)
		return
	}
	var gotPE *PolicyError
	if !errors.As(err, &gotPE) || !same(*gotPE, pe) {
		t.Fatalf("%s: want the guest's %+v, got %v", what, pe, err)
	}
}

// params draws the three step params; bad when the WIT cannot carry them.
func params(r *fz) (Policy, DeliveryState, AttemptOutcome, bool) {
	r.bad = false
	p, s, o := r.policy(), r.state(), r.outcome()
	return p, s, o, r.bad
}

// stepParamsBack checks the params tuple the fake received in memory.
func stepParamsBack(t *testing.T, g *fakeGuest, what string, p Policy, s DeliveryState, o AttemptOutcome) uint32 {
	t.Helper()
	ptr := uint32(g.got[0])
	if ptr%8 != 0 {
		t.Fatalf("%s: params tuple at %#x is not 8-aligned", what, ptr)
	}
	lifted(t, what+" policy", false, p, g.decPolicy(ptr), nil)
	lifted(t, what+" state", false, s, g.decState(ptr+80), nil)
	lifted(t, what+" outcome", false, o, g.decOutcome(ptr+120), nil)
	return ptr
}

func flatBack(t *testing.T, g *fakeGuest, what string, want ...uint64) {
	t.Helper()
	if !same(g.got[:len(want)], want) {
		t.Fatalf("%s: flat params %v, want %v", what, g.got[:len(want)], want)
	}
}

var callChecks = []func(t *testing.T, g *fakeGuest, r *fz){
	func(t *testing.T, g *fakeGuest, r *fz) { // evaluate
		p, s, o, bad := params(r)
		now, errCase := r.u64(), r.flag()
		pe, peBad := errorAnswer(r)
		st := r.step()
		r.bad = pick(errCase, peBad, r.bad)
		g.answerResult(120, 8, errCase, &pe, func(at uint32) { g.encStep(at, &st) })
		got, err := g.in.callEvaluate(t.Context(), &p, &s, &o, now)
		if lowered(t, "evaluate", bad, errIfLower(err)) {
			ptr := stepParamsBack(t, g, "evaluate", p, s, o)
			lifted(t, "evaluate now", false, now, g.r64(ptr+152), nil)
			answered(t, "evaluate", errCase, r.bad, st, pe, got, err)
		}
	},
	func(t *testing.T, g *fakeGuest, r *fz) { // settle
		p, s, o, bad := params(r)
		now := r.u64()
		rep := r.reply()
		bad = bad || r.bad
		errCase := r.flag()
		pe, peBad := errorAnswer(r)
		st := Settlement{Decision: r.decision(), BudgetDisagreement: r.flag()}
		r.bad = pick(errCase, peBad, r.bad)
		g.answerResult(80, 8, errCase, &pe, func(at uint32) { g.encDecision(at, &st.Decision); g.wb(at+64, st.BudgetDisagreement) })
		got, err := g.in.callSettle(t.Context(), &p, &s, &o, now, &rep)
		if lowered(t, "settle", bad, errIfLower(err)) {
			ptr := stepParamsBack(t, g, "settle", p, s, o)
			lifted(t, "settle reply", false, rep, g.decReply(ptr+160), nil)
			answered(t, "settle", errCase, r.bad, st, pe, got, err)
		}
	},
	func(t *testing.T, g *fakeGuest, r *fz) { // plan
		r.bad = false
		b, window, hardCap := r.backoff(), r.u64(), r.u32()
		bad, errCase := r.bad, r.flag()
		pe, peBad := errorAnswer(r)
		sc := r.schedule()
		r.bad = pick(errCase, peBad, r.bad)
		g.answerResult(48, 8, errCase, &pe, func(at uint32) { g.encSchedule(at, &sc) })
		got, err := g.in.callPlan(t.Context(), &b, window, hardCap)
		if lowered(t, "plan", bad, errIfLower(err)) {
			flatBack(t, g, "plan", b.BaseMs, math.Float64bits(b.Factor), b.CapMs, uint64(b.Jitter), window, uint64(hardCap))
			answered(t, "plan", errCase, r.bad, sc, pe, got, err)
		}
	},
	func(t *testing.T, g *fakeGuest, r *fz) { // admit
		r.bad = false
		d, class, now := r.document(), r.str(), r.u64()
		bad, errCase := r.bad, r.flag()
		pe, peBad := errorAnswer(r)
		ad := r.admission()
		r.bad = pick(errCase, peBad, r.bad)
		g.answerResult(88, 8, errCase, &pe, func(at uint32) { g.encAdmission(at, &ad) })
		got, err := g.in.callAdmit(t.Context(), &d, class, now)
		if lowered(t, "admit", bad, errIfLower(err)) {
			_, b := g.area(16)
			for i := 0; i < 4; i++ {
				le.PutUint32(b[4*i:], uint32(g.got[i]))
			}
			back, backErr := g.in.liftPolicyDocument(b)
			lifted(t, "admit document", false, d, back, backErr)
			lifted(t, "admit class", false, class, string(g.bytes(uint32(g.got[4]), uint32(g.got[5]))), nil)
			flatBack(t, g, "admit now", append(append([]uint64(nil), g.got[:6]...), now)...)
			answered(t, "admit", errCase, r.bad, ad, pe, got, err)
		}
	},
	func(t *testing.T, g *fakeGuest, r *fz) { // load-document: the payload is 4-aligned
		r.bad = false
		text := r.str()
		bad, errCase := r.bad, r.flag()
		pe, peBad := errorAnswer(r)
		d := r.document()
		r.bad = pick(errCase, peBad, r.bad)
		g.answerResult(24, 4, errCase, &pe, func(at uint32) { g.encDocument(at, &d) })
		got, err := g.in.callLoadDocument(t.Context(), text)
		if lowered(t, "load-document", bad, errIfLower(err)) {
			lifted(t, "load-document json", false, text, string(g.bytes(uint32(g.got[0]), uint32(g.got[1]))), nil)
			answered(t, "load-document", errCase, r.bad, d, pe, got, err)
		}
	},
	func(t *testing.T, g *fakeGuest, r *fz) { // store-key and store-apply: no result wrapper
		r.bad = false
		q := r.storeRequest()
		bad := r.bad
		r.bad = false
		key := r.str()
		ret, _ := g.area(8)
		g.encStr(ret, key)
		g.ret = uint64(ret)
		got, err := g.in.callStoreKey(t.Context(), &q)
		if lowered(t, "store-key", bad, errIfLower(err)) {
			flatBack(t, g, "store-key", uint64(q.Op))
			lifted(t, "store-key", r.bad, key, got, err)
		}
		bu, now, held := r.budget(), r.u64(), r.held()
		r.bad = false
		ap := Applied{Reply: r.reservation(), Held: r.held()}
		ret, _ = g.area(80)
		g.encReservation(ret, &ap.Reply)
		g.encHeld(ret+40, &ap.Held)
		g.ret = uint64(ret)
		gotA, err := g.in.callStoreApply(t.Context(), &q, &bu, now, &held)
		if lowered(t, "store-apply", bad, errIfLower(err)) {
			flatBack(t, g, "store-apply", append(append([]uint64(nil), g.got[:5]...), math.Float64bits(bu.Ratio), bu.WindowMs, bu.MinSample, b2u(bu.Sliding), now, held.Bucket)...)
			lifted(t, "store-apply", false, ap, gotA, err)
		}
	},
	func(t *testing.T, g *fakeGuest, r *fz) { // the small results: enum, bool and u64 payloads, an option, flat answers
		errCase := r.flag()
		pe, peBad := errorAnswer(r)
		class := OutcomeClass(r.enum(3))
		g.answerResult(24, 4, errCase, &pe, func(at uint32) { g.w8(at, uint8(class)) })
		c, err := g.in.callClassifyStatus(t.Context(), r.u16())
		answered(t, "classify-status", errCase, pick(errCase, peBad, r.bad), class, pe, c, err)
		ms := r.u64()
		some := r.flag()
		ret, _ := g.area(16)
		g.wb(ret, some)
		g.w64(ret+8, ms)
		g.ret = uint64(ret)
		gotMs, gotSome, err := g.in.callParseRetryAfter(t.Context(), "120", 1)
		if err != nil || gotSome != some || (some && gotMs != ms) {
			t.Fatalf("parse-retry-after: (%d, %v, %v), want (%d, %v)", gotMs, gotSome, err, ms, some)
		}
		r.bad = false
		g.ret = uint64(r.enum(3))
		c, err = g.in.callClassifyError(t.Context(), "read_timeout")
		lifted(t, "classify-error", r.bad, OutcomeClass(g.ret), c, err)
		g.ret = uint64(r.u32())
		v, err := g.in.callABIVersion(t.Context())
		lifted(t, "abi-version", false, uint32(g.ret), v, err)
	},
}

// errorAnswer is a policy-error for the guest to answer and whether it is malformed.
func errorAnswer(r *fz) (PolicyError, bool) {
	r.bad = false
	pe := r.policyError()
	bad := r.bad
	r.bad = false
	return pe, bad
}

// pick is whether the answer stored is malformed: the error's or the value's.
func pick(errCase, errBad, okBad bool) bool {
	if errCase {
		return errBad
	}
	return okBad
}

// errIfLower is err when the glue refused the input (a *lowerError), else nil.
func errIfLower(err error) error {
	var le *lowerError
	if errors.As(err, &le) {
		return err
	}
	return nil
}
