package retrypolicy

import (
	"context"
	"errors"
	"math"
	"testing"
)

// FuzzTheComponentAnswersRandomStepsAlikeEveryTime runs random, mostly
// realistic step inputs through the real component (go fuzzing sees only
// the Go side's coverage, so the values are drawn near the contract's
// ranges, with a share of refusals) and checks: no call traps (every
// error is a *PolicyError); each call answers the same twice; Settle
// keeps a decision Evaluate's gates made, whatever the store replied
// (what Engine.Step relies on to skip it); Evaluate and Settle refuse the
// same step params alike (one code, one field).
func FuzzTheComponentAnswersRandomStepsAlikeEveryTime(f *testing.F) {
	ctx := context.Background()
	e, err := New(ctx, WithMaxIdle(1), WithClock(ClockFunc(func() uint64 { return 1_700_000_000_000 })))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = e.Close(ctx) })
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte("\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0\xff\x00\x11\x22\x33\x44\x55\x66"))
	f.Add([]byte("\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0\x0f\x0e\x0d\x0c\x0b\x0a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &realistic{fz{b: data}}
		p, s, o, now := r.policy(), r.state(), r.outcome(), r.now()
		reply := r.reply()
		twice := func(what string, call func() (any, error)) (any, error) {
			t.Helper()
			a, errA := call()
			b, errB := call()
			noTrap(t, what, errA)
			if !same(a, b) || !sameErr(errA, errB) {
				t.Fatalf("%s answered %+v (%v), then %+v (%v)", what, a, errA, b, errB)
			}
			return a, errA
		}
		st, errEval := twice("evaluate", func() (any, error) { return e.Evaluate(ctx, p, s, o, now) })
		settled, errSettle := twice("settle", func() (any, error) { return e.Settle(ctx, p, s, o, now, reply) })
		twice("plan", func() (any, error) { return e.Plan(ctx, p.Backoff, p.WindowMs, p.HardCap) })
		if o.Response != nil {
			twice("classify-status", func() (any, error) { return e.ClassifyStatus(ctx, o.Response.Status) })
		} else {
			twice("classify-error", func() (any, error) { return e.ClassifyError(ctx, *o.TransportError) })
		}
		if errEval == nil {
			if d := st.(Step).Decision; d != nil && errSettle == nil && !same(*d, settled.(Settlement).Decision) {
				t.Fatalf("evaluate's gates decided %+v; settle with %+v decided %+v", *d, reply, settled)
			}
			if req := st.(Step).Store; req != nil {
				twice("store-key", func() (any, error) { return e.StoreKey(ctx, *req) })
				twice("store-apply", func() (any, error) { return e.StoreApply(ctx, *req, p.Budget, now, HeldBuckets{}) })
			}
		}
		if !sameCode(errEval, errSettle) {
			t.Fatalf("the same step params refused differently: evaluate %v, settle %v", errEval, errSettle)
		}
	})
}

func noTrap(t *testing.T, what string, err error) {
	t.Helper()
	var pe *PolicyError
	if err != nil && !errors.As(err, &pe) {
		t.Fatalf("%s: want a value or a *PolicyError, got %T %v", what, err, err)
	}
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// sameCode: both accepted, or both refused with one code and field.
func sameCode(a, b error) bool {
	var pa, pb *PolicyError
	if !errors.As(a, &pa) || !errors.As(b, &pb) {
		return (a == nil) == (b == nil)
	}
	return pa.Code == pb.Code && pa.Field == pb.Field
}

// realistic draws values near the contract's ranges: mostly accepted,
// some refused, a few extreme.
type realistic struct{ fz }

func (r *realistic) pick(vals ...uint64) uint64 { return vals[int(r.u8())%len(vals)] }

// rare is true one time in eight: then draw a value the contract may refuse.
func (r *realistic) rare() bool { return r.u8() >= 224 }

func (r *realistic) ms() uint64 {
	switch r.u8() % 8 {
	case 0:
		return 0
	case 1:
		return math.MaxUint64 - uint64(r.u8())
	case 2, 3:
		return uint64(r.u16())
	}
	return uint64(r.u32() % 100_000_000)
}

func (r *realistic) factor() float64 {
	if r.rare() {
		fs := []float64{0.5, 0, -1, math.NaN(), math.Inf(1), 1e300}
		if v := r.u8(); int(v) < len(fs) {
			return fs[v]
		}
		return r.f64()
	}
	return []float64{1, 1.5, 2, 3}[r.u8()%4]
}

func (r *realistic) policy() Policy {
	base := 100 + uint64(r.u16()%10_000)
	p := Policy{Backoff: Backoff{BaseMs: base, Factor: r.factor(), CapMs: base * r.pick(1, 10, 30), Jitter: Jitter(r.u8() % 3)}}
	if r.rare() {
		p.Backoff.BaseMs, p.Backoff.CapMs = r.ms(), r.ms()
	}
	p.WindowMs, p.HardCap = r.pick(3_600_000, 86_400_000, 60_000, 900_000)*uint64(1+r.u8()%4), uint32(r.pick(16, 5, 20, 50))
	if r.rare() {
		p.WindowMs, p.HardCap = r.ms(), uint32(r.pick(0, 1, 100, 1000, math.MaxUint32))
	}
	p.Budget = Budget{Ratio: []float64{0.1, 0.2, 0.5, 1}[r.u8()%4], WindowMs: r.pick(60_000, 10_000, 3_600_000),
		MinSample: uint64(r.u8()), Sliding: r.flag()}
	if r.rare() {
		p.Budget.Ratio, p.Budget.WindowMs = []float64{0, 1.5, -0.1, math.NaN()}[r.u8()%4], r.pick(0, 1, math.MaxUint64)
	}
	return p
}

func (r *realistic) now() uint64 { return 1_700_000_000_000 + uint64(r.u32()%100_000_000) }

func (r *realistic) state() DeliveryState {
	ids := []string{"evt_1", "ep_42", "e\u00e9\U0001F600", "evt_with_a_longer_identifier_0123456789", "", string(make([]byte, 4096))}
	s := DeliveryState{EventID: ids[int(r.u8())%len(ids)], EndpointID: ids[int(r.u8())%len(ids)],
		Attempt: 1 + uint32(r.u8()%12), FirstAttemptedAtMs: 1_700_000_000_000 - uint64(r.u32()%10_000_000), CredentialsRefreshed: r.flag()}
	s.MaxAttempts = s.Attempt + uint32(r.u8()%6)
	if r.rare() {
		s.Attempt, s.MaxAttempts, s.FirstAttemptedAtMs = uint32(r.pick(0, 1, 100)), uint32(r.pick(0, 1, 1000)), r.ms()
	}
	return s
}

func (r *realistic) outcome() AttemptOutcome {
	if r.u8()%4 == 0 {
		kinds := []string{"connect_timeout", "read_timeout", "dns_failure", "tls_error", "connection_reset", "nope", ""}
		return TransportErrorOutcome(kinds[int(r.u8())%len(kinds)])
	}
	resp := HTTPResponse{Status: uint16(r.pick(503, 429, 500, 502, 408, 200, 204, 410, 401, 404, 301))}
	if r.rare() {
		resp.Status = uint16(r.pick(99, 600, 0, 65535, uint64(r.u16())))
	}
	if r.flag() {
		ms := uint64(r.u32() % 600_000)
		if r.rare() {
			ms = r.ms()
		}
		resp.RetryAfterMs = &ms
	}
	return AttemptOutcome{Response: &resp}
}

func (r *realistic) counts() *BudgetCounts {
	if r.u8()%4 == 0 {
		return nil
	}
	c := BudgetCounts{Current: BucketCounts{Total: uint64(r.u16()), Retries: uint64(r.u8())}, Previous: BucketCounts{Total: uint64(r.u16()), Retries: uint64(r.u8())}}
	return &c
}

func (r *realistic) countsOrZero(c *BudgetCounts) *BudgetCounts {
	if c == nil {
		return &BudgetCounts{}
	}
	return c
}

func (r *realistic) reply() StoreReply {
	if r.u8()%3 == 0 {
		return StoreReply{Unavailable: true}
	}
	return StoreReply{Answered: &Reservation{Reserved: r.flag(), Counts: *r.countsOrZero(r.counts())}}
}
