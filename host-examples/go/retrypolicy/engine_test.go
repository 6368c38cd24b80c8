package retrypolicy_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var (
	notification = rp.Policy{
		Backoff:  rp.Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: rp.JitterFull},
		WindowMs: 900000,
		HardCap:  16,
		Budget:   rp.Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 50, Sliding: true},
	}
	firstAt   = uint64(1700000000000)
	someState = rp.DeliveryState{EventID: "evt_1", EndpointID: "ep_42", Attempt: 1, MaxAttempts: 13, FirstAttemptedAtMs: firstAt}
)

func newEngine(t testing.TB, opts ...rp.Option) *rp.Engine {
	t.Helper()
	ctx := context.Background()
	e, err := rp.New(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	return e
}

func wantCode(t *testing.T, err error, code rp.ErrorCode, field string) {
	t.Helper()
	var pe *rp.PolicyError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *PolicyError %s, got %v", code, err)
	}
	if pe.Code != code || (field != "" && pe.Field != field) {
		t.Fatalf("want %s at %q, got %s at %q (%s)", code, field, pe.Code, pe.Field, pe.Message)
	}
}

func TestARefusedInputIsAPolicyErrorWithTheSpecCodeAndField(t *testing.T) {
	e := newEngine(t)
	_, err := e.Plan(context.Background(), rp.Backoff{BaseMs: 2000, Factor: 0.5, CapMs: 300000}, 900000, 16)
	wantCode(t, err, rp.ErrorCodeInvalidBackoff, "backoff.factor")
	_, err = e.ClassifyStatus(context.Background(), 99)
	wantCode(t, err, rp.ErrorCodeInvalidStatus, "")
	if !strings.Contains(err.Error(), "invalid_status") {
		t.Fatalf("the message should name the code: %v", err)
	}
}

func TestInvalidUTF8IsRefusedAsInvalidInputBeforeReachingTheGuest(t *testing.T) {
	e := newEngine(t)
	s := someState
	s.EventID = "evt_\xff"
	_, err := e.Evaluate(context.Background(), notification, s, rp.ResponseOutcome(503), firstAt)
	wantCode(t, err, rp.ErrorCodeInvalidInput, "state.event_id")
	_, err = e.ClassifyError(context.Background(), "\xc3")
	wantCode(t, err, rp.ErrorCodeInvalidInput, "error_kind")
}

func TestAJitterOutsideTheWITEnumIsInvalidBackoff(t *testing.T) {
	e := newEngine(t)
	p := notification
	p.Backoff.Jitter = 7
	_, err := e.Settle(context.Background(), p, someState, rp.ResponseOutcome(503), firstAt, rp.StoreReply{Unavailable: true})
	wantCode(t, err, rp.ErrorCodeInvalidBackoff, "policy.backoff.jitter")
	if _, ok := rp.ParseJitter("decorrelated"); ok {
		t.Fatal("ParseJitter accepted an unknown jitter")
	}
}

func TestAnOutcomeWithNoneOrBothCasesSetIsInvalidInput(t *testing.T) {
	e := newEngine(t)
	o := rp.ResponseOutcome(503)
	o.TransportError = rp.TransportErrorOutcome("connect_timeout").TransportError
	_, err := e.Settle(context.Background(), notification, someState, o, firstAt, rp.StoreReply{Unavailable: true})
	wantCode(t, err, rp.ErrorCodeInvalidInput, "outcome")
	_, err = e.Evaluate(context.Background(), notification, someState, rp.AttemptOutcome{}, firstAt)
	wantCode(t, err, rp.ErrorCodeInvalidInput, "outcome")
}

func TestEvaluateAndSettleFollowTheSpecGatesForA503AndA410(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	reserved := rp.StoreReply{Answered: &rp.Reservation{Reserved: true,
		Counts: rp.BudgetCounts{Current: rp.BucketCounts{Total: 1000, Retries: 5}, Previous: rp.BucketCounts{Total: 1000, Retries: 5}}}}
	st, err := e.Settle(ctx, notification, someState, rp.ResponseOutcome(503), firstAt+100, reserved)
	if d := st.Decision; err != nil || d.Retry == nil || d.Retry.DelayMs != 8 || d.Stop != nil {
		t.Fatalf("503 on attempt 1: want retry after 8 ms (the SPEC vector), got %+v %v", d, err)
	}
	step, err := e.Evaluate(ctx, notification, someState, rp.ResponseOutcome(410), firstAt+100)
	if err != nil || step.Decision == nil || step.Decision.Stop == nil {
		t.Fatalf("410: want a gate's stop, got %+v %v", step, err)
	}
	if d := *step.Decision; d.Stop.Reason != rp.StopReasonTerminalResponse || !d.Stop.DisableEndpoint {
		t.Fatalf("410: want terminal_response with disable_endpoint, got %+v", d)
	}
	if dl := step.Decision.Stop.DeadLetter; dl == nil || dl.EventID != "evt_1" || dl.ElapsedMs != 100 || dl.StopReason != rp.StopReasonTerminalResponse {
		t.Fatalf("410: dead letter %+v", dl)
	}
	st, err = e.Settle(ctx, notification, someState, rp.ResponseOutcome(503), firstAt+100, rp.StoreReply{Unavailable: true})
	if d := st.Decision; err != nil || d.Stop == nil || d.Stop.Reason != rp.StopReasonBudgetUnavailable {
		t.Fatalf("an unavailable store: want budget_unavailable, got %+v %v", d, err)
	}
}

func TestCallsAfterCloseReturnErrClosed(t *testing.T) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ClassifyStatus(ctx, 200); !errors.Is(err, rp.ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
	if err := e.Close(ctx); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

func TestConcurrentDecisionsAgreeWithSequentialOnes(t *testing.T) {
	e := newEngine(t, rp.WithMaxIdle(2))
	ctx := context.Background()
	const n = 64
	want := make([]rp.Decision, n)
	stateOf := func(i int) rp.DeliveryState {
		s := someState
		s.EventID = "evt_" + itoa(uint64(i))
		s.Attempt = uint32(1 + i%12)
		return s
	}
	reply := rp.StoreReply{Answered: &rp.Reservation{Reserved: true}}
	decide := func(i int) (rp.Decision, error) {
		st, err := e.Settle(ctx, notification, stateOf(i), rp.ResponseOutcome(503), firstAt+uint64(i)*1000, reply)
		return st.Decision, err
	}
	for i := range want {
		d, err := decide(i)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = d
	}
	var wg sync.WaitGroup
	var mismatches atomic.Int32
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 10; r++ {
				for i := range want {
					d, err := decide(i)
					if err != nil || !sameDecision(d, want[i]) {
						mismatches.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	if m := mismatches.Load(); m != 0 {
		t.Fatalf("%d concurrent decisions differed from the sequential ones", m)
	}
}

func sameDecision(a, b rp.Decision) bool {
	switch {
	case a.Retry != nil && b.Retry != nil:
		return *a.Retry == *b.Retry
	case a.Stop != nil && b.Stop != nil:
		if a.Stop.Reason != b.Stop.Reason || a.Stop.DisableEndpoint != b.Stop.DisableEndpoint {
			return false
		}
		if (a.Stop.DeadLetter == nil) != (b.Stop.DeadLetter == nil) {
			return false
		}
		return a.Stop.DeadLetter == nil || *a.Stop.DeadLetter == *b.Stop.DeadLetter
	}
	return false
}

const documentJSON = `{
  "version": "2026-11-30",
  "classes": {
    "notification": {"window_ms": 900000,
                     "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"}},
    "ledger": {"window_ms": 86400000, "hard_cap": 16,
               "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000}}
  }
}`

func TestAdmitGivesTheScheduleThatPlanDerivesForTheClass(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	doc, err := e.LoadDocument(ctx, []byte(documentJSON))
	if err != nil {
		t.Fatal(err)
	}
	// (The WIT says "sorted by name"; the component returns document order,
	// so classes are looked up by name here.)
	if doc.Version != "2026-11-30" || len(doc.Classes) != 2 {
		t.Fatalf("document %+v", doc)
	}
	var p rp.Policy
	for _, c := range doc.Classes {
		if c.Name == "notification" {
			p = c.Policy
		}
	}
	if p.WindowMs != 900000 || p.HardCap != 16 || p.Budget.Ratio != 0.1 || !p.Budget.Sliding {
		t.Fatalf("notification with the document defaults: %+v", p)
	}
	a, err := e.Admit(ctx, doc, "notification", firstAt)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := e.Plan(ctx, p.Backoff, p.WindowMs, p.HardCap)
	if err != nil {
		t.Fatal(err)
	}
	if a.FirstAttemptedAtMs != firstAt || a.DeadlineMs != firstAt+900000 || a.Schedule.MaxAttempts != plan.MaxAttempts ||
		len(a.Schedule.OffsetsMs) != len(plan.OffsetsMs) || len(a.PolicyHash) != 16 || a.PolicyVersion != "2026-11-30" {
		t.Fatalf("admission %+v vs plan %+v", a, plan)
	}
	_, err = e.Admit(ctx, doc, "presence", firstAt)
	wantCode(t, err, rp.ErrorCodeUnknownEventClass, "class")
}

func TestAdmitRevalidatesADocumentTheHostAltered(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	doc, err := e.LoadDocument(ctx, []byte(documentJSON))
	if err != nil {
		t.Fatal(err)
	}
	for i := range doc.Classes {
		doc.Classes[i].Policy.HardCap = 0
	}
	_, err = e.Admit(ctx, doc, "notification", firstAt)
	wantCode(t, err, rp.ErrorCodeInvalidHardCap, "")
	_, err = e.LoadDocument(ctx, []byte(`{"classes": {"x": {"window_ms": 1, "max_attempts": 3, "backoff": {"base_ms": 1, "factor": 1.0, "cap_ms": 1}}}}`))
	wantCode(t, err, rp.ErrorCodeInvalidDocument, "")
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
