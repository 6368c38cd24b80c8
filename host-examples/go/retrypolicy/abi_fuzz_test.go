package retrypolicy

import (
	"context"
	"errors"
	"testing"
)

// FuzzLiftingRandomGuestMemoryGivesAValueOrAnABIError fills the fake
// guest's memory with fuzzer bytes and lifts every WIT type the boundary
// lifts from a fuzzer-chosen pointer: each record, variant, option, list
// and string lift directly, every export's whole call (its result
// wrapper through the return area, or its flat result), and the import
// budget-store.call from fuzzer flat params. Each must give a value, the
// guest's *PolicyError or an *abiError: never a panic, never a read out
// of bounds, and never more bytes of strings and lists than the memory
// holds (an aliased list of long strings must not balloon).
func FuzzLiftingRandomGuestMemoryGivesAValueOrAnABIError(f *testing.F) {
	g := newFakeGuest(f)
	for _, s := range liftSeeds(g) {
		f.Add(s.data, s.ret, s.n, s.flags)
	}
	f.Fuzz(func(t *testing.T, data []byte, ret, n uint32, flags uint64) {
		g.load(data)
		g.ret = uint64(ret)
		for _, c := range liftCases {
			g.in.lifted = 0
			err := c.lift(g.in, ret)
			var pe *PolicyError
			if err != nil && !isABIError(err) && !errors.As(err, &pe) {
				t.Fatalf("%s at %#x: want a value or an ABI error, got %T %v", c.name, ret, err, err)
			}
			if g.in.lifted > uint64(g.in.mem.Size()) {
				t.Fatalf("%s lifted %d bytes from a memory of %d", c.name, g.in.lifted, g.in.mem.Size())
			}
			g.next = fakeHeap // the lowered arguments, each call afresh
		}
		liftImport(t, g, ret, n, flags)
	})
}

type liftCase struct {
	name string
	lift func(in *instance, ret uint32) error
}

// at lifts a T of size bytes at ret with the generated liftT.
func at[T any](size uint32, lift func(a *abi, b []byte) (T, error)) func(*instance, uint32) error {
	return func(in *instance, ret uint32) error {
		b, err := in.view(ret, size)
		if err != nil {
			return err
		}
		_, err = lift(&in.abi, b)
		return err
	}
}

// call runs an export's generated call on fixed, valid arguments; the
// fake guest answers with the fuzzer's pointer.
func call[T any](fn func(in *instance, ctx context.Context) (T, error)) func(*instance, uint32) error {
	return func(in *instance, _ uint32) error {
		_, err := fn(in, context.Background())
		return err
	}
}

var (
	seedPolicy = Policy{Backoff: Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: JitterFull}, WindowMs: 900000, HardCap: 16,
		Budget: Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 50, Sliding: true}}
	seedState   = DeliveryState{EventID: "evt_1", EndpointID: "ep_42", Attempt: 2, MaxAttempts: 13, FirstAttemptedAtMs: 1}
	seedOutcome = ResponseOutcome(503)
	seedDoc     = PolicyDocument{Version: "v1", Classes: []EventClass{{Name: "a", Policy: seedPolicy}}}
	seedRequest = StoreRequest{Op: StoreOpReserve, EndpointID: "ep_42", WindowMs: 60000, Bucket: 7}
	seedCounts  = BudgetCounts{Current: BucketCounts{Total: 100, Retries: 5}, Previous: BucketCounts{Total: 90, Retries: 4}}
)

var liftCases = []liftCase{
	{"Schedule", at(40, (*abi).liftSchedule)},
	{"PolicyError", at(20, (*abi).liftPolicyError)},
	{"PolicyDocument", at(16, (*abi).liftPolicyDocument)},
	{"Admission", at(80, (*abi).liftAdmission)},
	{"Step", at(112, (*abi).liftStep)},
	{"Settlement", at(72, (*abi).liftSettlement)},
	{"Applied", at(80, (*abi).liftApplied)},
	{"Decision", at(64, (*abi).liftDecision)},
	{"StoreRequest", at(32, (*abi).liftStoreRequest)},
	{"Stop", at(56, (*abi).liftStop)},
	{"Reservation", at(40, (*abi).liftReservation)},
	{"HeldBuckets", at(40, (*abi).liftHeldBuckets)},
	{"Retry", at(16, (*abi).liftRetry)},
	{"Policy", at(80, (*abi).liftPolicy)},
	{"DeadLetter", at(40, (*abi).liftDeadLetter)},
	{"BudgetCounts", at(32, (*abi).liftBudgetCounts)},
	{"BucketCounts", at(16, (*abi).liftBucketCounts)},
	{"Backoff", at(32, (*abi).liftBackoff)},
	{"Budget", at(32, (*abi).liftBudget)},
	{"EventClass", at(88, (*abi).liftEventClass)},
	{"HealthDocument", at(16, (*abi).liftHealthDocument)},
	{"Health", at(96, (*abi).liftHealth)},
	{"abi-version", call(func(in *instance, ctx context.Context) (uint32, error) { return in.callABIVersion(ctx) })},
	{"plan", call(func(in *instance, ctx context.Context) (Schedule, error) {
		return in.callPlan(ctx, &seedPolicy.Backoff, 900000, 16)
	})},
	{"classify-status", call(func(in *instance, ctx context.Context) (OutcomeClass, error) { return in.callClassifyStatus(ctx, 503) })},
	{"classify-error", call(func(in *instance, ctx context.Context) (OutcomeClass, error) {
		return in.callClassifyError(ctx, "read_timeout")
	})},
	{"load-document", call(func(in *instance, ctx context.Context) (PolicyDocument, error) {
		return in.callLoadDocument(ctx, `{"classes":{}}`)
	})},
	{"admit", call(func(in *instance, ctx context.Context) (Admission, error) {
		return in.callAdmit(ctx, &seedDoc, "a", 10)
	})},
	{"evaluate", call(func(in *instance, ctx context.Context) (Step, error) {
		return in.callEvaluate(ctx, &seedPolicy, &seedState, &seedOutcome, 10)
	})},
	{"settle", call(func(in *instance, ctx context.Context) (Settlement, error) {
		return in.callSettle(ctx, &seedPolicy, &seedState, &seedOutcome, 10, &StoreReply{Unavailable: true})
	})},
	{"parse-retry-after", call(func(in *instance, ctx context.Context) (uint64, error) {
		ms, _, err := in.callParseRetryAfter(ctx, "120", 10)
		return ms, err
	})},
	{"store-key", call(func(in *instance, ctx context.Context) (string, error) { return in.callStoreKey(ctx, &seedRequest) })},
	{"store-apply", call(func(in *instance, ctx context.Context) (Applied, error) {
		return in.callStoreApply(ctx, &seedRequest, &seedPolicy.Budget, 10, &HeldBuckets{Bucket: 7})
	})},
	{"decide", call(func(in *instance, ctx context.Context) (Decision, error) {
		return in.callDecide(ctx, &seedPolicy, &seedState, &seedOutcome)
	})},
	{"load-health-document", call(func(in *instance, ctx context.Context) (HealthDocument, error) {
		return in.callLoadHealthDocument(ctx, `{"classes":{}}`)
	})},
}

// fakeStore answers the import with a reservation, or an error when told to.
type fakeStore struct{ fail bool }

func (fakeStore) clockNowMs(context.Context) uint64 { return 10 }

func (s fakeStore) budgetStoreCall(context.Context, StoreRequest, Budget, uint64) (Reservation, error) {
	if s.fail {
		return Reservation{}, errors.New("store down \xff")
	}
	return Reservation{Reserved: true, Counts: seedCounts}, nil
}

// liftImport lifts budget-store.call's params (a store-request, a budget,
// now-ms, the return pointer) from fuzzer values and lowers its answer.
func liftImport(t *testing.T, g *fakeGuest, ptr, n uint32, flags uint64) {
	s := []uint64{flags & 3, uint64(ptr), uint64(n), flags, flags >> 8, flags, flags >> 16, flags >> 24, (flags >> 32) & 3, flags, uint64(uint32(flags >> 34))}
	g.in.lifted = 0
	if _, rest, err := g.in.liftFlatStoreRequest(s); err == nil {
		if _, _, err := g.in.liftFlatBudget(rest); err != nil && !isABIError(err) {
			t.Fatalf("budget: %v", err)
		}
	} else if !isABIError(err) {
		t.Fatalf("store-request: %v", err)
	}
	for _, fail := range []bool{false, true} {
		g.next = fakeHeap
		if err := g.callImport(importBudgetStoreCall(fakeStore{fail}), append([]uint64(nil), s...)); err != nil && !isABIError(err) {
			t.Fatalf("budget-store.call: %v", err)
		}
	}
}

type liftSeed struct {
	data   []byte
	ret, n uint32
	flags  uint64
}

// liftSeeds are realistic memories: results laid out by the test's own
// encoder from address 8, bare and inside a call's result<_, policy-error>.
func liftSeeds(g *fakeGuest) []liftSeed {
	var out []liftSeed
	add := func(_ string, enc func() uint32) {
		g.load(nil)
		g.next = 8
		ret := enc()
		data := append([]byte(nil), g.bytes(0, g.next)...)
		out = append(out, liftSeed{data, ret, 5, uint64(ret) << 34})
	}
	r := &fz{}
	sched := Schedule{MaxAttempts: 4, ExpectedSpanMs: 14000, OffsetsMs: []uint64{2000, 6000, 14000}, WorstCaseSpanMs: 14000}
	stop := Stop{Reason: StopReasonRetryWindowElapsed, DeadLetter: &DeadLetter{EventID: "evt_1", EndpointID: "ep_42", Attempts: 3, ElapsedMs: 900001, StopReason: StopReasonRetryWindowElapsed}}
	step := Step{Decision: &Decision{Stop: &stop}, Store: &seedRequest}
	add("schedule", func() uint32 { p := g.put(8, 40); g.encSchedule(p, &sched); return p })
	add("result ok schedule", func() uint32 { p := g.put(8, 48); g.encSchedule(p+8, &sched); return p })
	add("result err", func() uint32 {
		p := g.put(8, 48)
		g.w8(p, 1)
		g.encPolicyError(p+8, &PolicyError{Code: ErrorCodeInvalidWindow, Field: "window_ms", Message: "must be > 0"})
		return p
	})
	add("step", func() uint32 { p := g.put(8, 112); g.encStep(p, &step); return p })
	add("result ok step", func() uint32 { p := g.put(8, 120); g.encStep(p+8, &step); return p })
	add("document", func() uint32 { p := g.put(8, 16); g.encDocument(p, &seedDoc); return p })
	add("result ok document", func() uint32 { p := g.put(8, 24); g.encDocument(p+4, &seedDoc); return p })
	add("admission", func() uint32 {
		p := g.put(8, 88)
		g.encAdmission(p+8, &Admission{Class: "a", PolicyVersion: "v1", PolicyHash: "h", Schedule: sched})
		return p
	})
	add("applied", func() uint32 {
		p := g.put(8, 80)
		g.encReservation(p, &Reservation{Reserved: true, Counts: seedCounts})
		g.encHeld(p+40, &HeldBuckets{Bucket: 7, Current: seedCounts.Current})
		return p
	})
	add("store key", func() uint32 { p := g.put(4, 8); g.encStr(p, "budget:ep_42:60000"); return p })
	add("random", func() uint32 { d := r.decision(); p := g.put(8, 72); g.encDecision(p+8, &d); return p })
	g.load(nil)
	return out
}
