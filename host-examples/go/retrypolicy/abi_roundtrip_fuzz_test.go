package retrypolicy

import (
	"errors"
	"math"
	"testing"
)

// FuzzLoweringThenLiftingGivesTheValueBack derives values of every
// generated Go type from the fuzzer's bytes and checks the glue against
// the test's own layout (fuzz_oracle_test.go), in the fake guest's memory:
//   - a type both lowered and lifted (Policy, EventClass, PolicyDocument,
//     Reservation, BudgetCounts, StoreRequest, HeldBuckets, Budget,
//     Backoff) comes back equal from the generated lift;
//   - a param-only type (DeliveryState, AttemptOutcome, StoreReply) reads
//     back equal with the test's decoder;
//   - a result-only type (Schedule, PolicyError, Admission, Step,
//     Decision, Stop, Settlement, Resumption, Applied), stored by the
//     test's encoder, lifts equal with the generated lift.
//
// A value the WIT cannot carry (invalid UTF-8, an enum out of range, a
// variant with no or two cases) must be a *lowerError when lowered and an
// *abiError when lifted.
func FuzzLoweringThenLiftingGivesTheValueBack(f *testing.F) {
	g := newFakeGuest(f)
	f.Add([]byte{})
	f.Add([]byte("\x02evt_1\x05ep_42\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	f.Add(append([]byte{0xff, 0x10, 0x00, 0xfe}, make([]byte, 300)...))
	f.Add([]byte("\x03\xff\xfe\xfd\xf3\x01\x31\x00\x00\x00\x00\x00\xf0\x7f\x31\x32"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g.load(nil)
		r := &fz{b: data}
		roundTrips(t, g, r)
		paramsReadBack(t, g, r)
		resultsLift(t, g, r)
	})
}

// lowered runs a lowering of a value (bad: the WIT cannot carry it) and
// reports whether it succeeded; a refusal must be a *lowerError, only for bad.
func lowered(t *testing.T, what string, bad bool, err error) bool {
	t.Helper()
	var le *lowerError
	switch {
	case err == nil && bad:
		t.Fatalf("%s: a value the WIT cannot carry was lowered", what)
	case err != nil && (!bad || !errors.As(err, &le)):
		t.Fatalf("%s: want a *lowerError only for a bad value, got %T %v (bad %v)", what, err, err, bad)
	}
	return err == nil
}

// lifted compares a lift with the value expected, or wants an *abiError for bad.
func lifted(t *testing.T, what string, bad bool, want, got any, err error) {
	t.Helper()
	switch {
	case bad && !isABIError(err):
		t.Fatalf("%s: want an ABI error for a malformed value, got %v (%+v)", what, err, got)
	case !bad && err != nil:
		t.Fatalf("%s: %v", what, err)
	case !bad && !same(want, got):
		t.Fatalf("%s: lifted\n%+v\nwant\n%+v", what, got, want)
	}
}

// area is a fresh zeroed guest area of n bytes and a view of it.
func (g *fakeGuest) area(n uint32) (uint32, []byte) {
	p := g.put(8, n)
	return p, g.bytes(p, n)
}

func roundTrips(t *testing.T, g *fakeGuest, r *fz) {
	ctx := t.Context()
	a := &g.in.abi

	r.bad = false
	p := r.policy()
	if _, b := g.area(80); lowered(t, "Policy", r.bad, a.storePolicy(ctx, b, &p)) {
		got, err := a.liftPolicy(b)
		lifted(t, "Policy", false, p, got, err)
	}
	r.bad = false
	c := EventClass{Name: r.str(), Policy: r.policy()}
	if _, b := g.area(88); lowered(t, "EventClass", r.bad, a.storeEventClass(ctx, b, &c)) {
		got, err := a.liftEventClass(b)
		lifted(t, "EventClass", false, c, got, err)
	}
	r.bad = false
	res := r.reservation()
	if _, b := g.area(40); lowered(t, "Reservation", false, a.storeReservation(ctx, b, &res)) {
		got, err := a.liftReservation(b)
		lifted(t, "Reservation", false, res, got, err)
	}
	r.bad = false
	d := r.document()
	if s, err := a.flatPolicyDocument(ctx, nil, &d); lowered(t, "PolicyDocument", r.bad, err) {
		_, b := g.area(16)
		for i, v := range s {
			if v > math.MaxUint32 {
				t.Fatalf("PolicyDocument flat value %d is %#x, not an i32", i, v)
			}
			le.PutUint32(b[4*i:], uint32(v))
		}
		got, err := a.liftPolicyDocument(b)
		lifted(t, "PolicyDocument", false, d, got, err)
	}
	r.bad = false
	q := r.storeRequest()
	if s, err := a.flatStoreRequest(ctx, nil, &q); lowered(t, "StoreRequest", r.bad, err) {
		got, rest, err := a.liftFlatStoreRequest(s)
		lifted(t, "StoreRequest", false, q, got, err)
		if len(rest) != 0 {
			t.Fatalf("StoreRequest: %d flat values left over", len(rest))
		}
	}
	r.bad = false
	bu := r.budget()
	if s, err := a.flatBudget(ctx, nil, &bu); lowered(t, "Budget", false, err) {
		got, _, err := a.liftFlatBudget(s)
		lifted(t, "Budget", false, bu, got, err)
	}
	r.bad = false
	h := r.held()
	if s, err := a.flatHeldBuckets(ctx, nil, &h); lowered(t, "HeldBuckets", false, err) {
		_, b := g.area(40)
		for i, v := range s {
			le.PutUint64(b[8*i:], v)
		}
		got, err := a.liftHeldBuckets(b)
		lifted(t, "HeldBuckets", false, h, got, err)
	}
	r.bad = false
	bo := r.backoff()
	if s, err := a.flatBackoff(ctx, nil, &bo); lowered(t, "Backoff", r.bad, err) {
		_, b := g.area(32)
		le.PutUint64(b[0:], s[0])
		le.PutUint64(b[8:], s[1])
		le.PutUint64(b[16:], s[2])
		b[24] = uint8(s[3])
		got, err := a.liftBackoff(b)
		lifted(t, "Backoff", false, bo, got, err)
	}
}

func paramsReadBack(t *testing.T, g *fakeGuest, r *fz) {
	ctx := t.Context()
	a := &g.in.abi
	r.bad = false
	s := r.state()
	if p, b := g.area(40); lowered(t, "DeliveryState", r.bad, a.storeDeliveryState(ctx, b, &s)) {
		lifted(t, "DeliveryState", false, s, g.decState(p), nil)
	}
	r.bad = false
	o := r.outcome()
	if p, b := g.area(32); lowered(t, "AttemptOutcome", r.bad, a.storeAttemptOutcome(ctx, b, &o)) {
		lifted(t, "AttemptOutcome", false, o, g.decOutcome(p), nil)
	}
	r.bad = false
	rep := r.reply()
	if p, b := g.area(48); lowered(t, "StoreReply", r.bad, a.storeStoreReply(ctx, b, &rep)) {
		lifted(t, "StoreReply", false, rep, g.decReply(p), nil)
	}
}

// liftBack draws a value with gen (r.bad then says whether the draw made
// it unrepresentable: read after gen returns, never in the same argument
// list, whose evaluation order against a field read Go leaves unspecified),
// stores it with the test's encoder at a fresh area of size bytes and lifts
// it with the generated lift.
func liftBack[T any](t *testing.T, g *fakeGuest, r *fz, what string, size uint32, gen func() T, enc func(uint32, *T), lift func(*abi, []byte) (T, error)) {
	t.Helper()
	r.bad = false
	v := gen()
	bad := r.bad
	p, b := g.area(size)
	enc(p, &v)
	got, err := lift(&g.in.abi, b)
	lifted(t, what, bad, v, got, err)
}

func resultsLift(t *testing.T, g *fakeGuest, r *fz) {
	liftBack(t, g, r, "Schedule", 40, r.schedule, g.encSchedule, (*abi).liftSchedule)
	liftBack(t, g, r, "PolicyError", 20, r.policyError, g.encPolicyError, (*abi).liftPolicyError)
	liftBack(t, g, r, "Admission", 80, r.admission, g.encAdmission, (*abi).liftAdmission)
	liftBack(t, g, r, "PolicyDocument", 16, r.document, g.encDocument, (*abi).liftPolicyDocument)
	liftBack(t, g, r, "Stop", 56, r.stop, g.encStop, (*abi).liftStop)
	liftBack(t, g, r, "Decision", 64, r.decision, g.encDecision, (*abi).liftDecision)
	liftBack(t, g, r, "Step", 112, r.step, g.encStep, (*abi).liftStep)
	liftBack(t, g, r, "Settlement", 72, func() Settlement {
		return Settlement{Decision: r.decision(), BudgetDisagreement: r.flag()}
	}, func(p uint32, v *Settlement) {
		g.encDecision(p, &v.Decision)
		g.wb(p+64, v.BudgetDisagreement)
	}, (*abi).liftSettlement)
	liftBack(t, g, r, "Applied", 80, func() Applied {
		return Applied{Reply: r.reservation(), Held: r.held()}
	}, func(p uint32, v *Applied) {
		g.encReservation(p, &v.Reply)
		g.encHeld(p+40, &v.Held)
	}, (*abi).liftApplied)
	liftBack(t, g, r, "StoreRequest", 32, r.storeRequest, g.encStoreRequest, (*abi).liftStoreRequest)
}
