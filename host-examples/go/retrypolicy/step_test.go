package retrypolicy_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// fakeStore records the requests it gets and answers, fails, panics or blocks.
type fakeStore struct {
	mu       sync.Mutex
	requests []rp.StoreRequest
	reply    rp.Reservation
	fail     error
	panics   bool
	block    bool
	sawKey   any
}

type ctxKey struct{}

func (f *fakeStore) Call(ctx context.Context, r rp.StoreRequest, _ rp.Budget, _ uint64) (rp.Reservation, error) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.sawKey = ctx.Value(ctxKey{})
	f.mu.Unlock()
	if f.panics {
		panic("store bug")
	}
	if f.block {
		<-ctx.Done()
		return rp.Reservation{}, ctx.Err()
	}
	return f.reply, f.fail
}

func TestAFirstAttemptRetryIsOneRecordReserveCallWhoseReservationStands(t *testing.T) {
	e := newEngine(t)
	store := &fakeStore{reply: rp.Reservation{Reserved: true}}
	now := firstAt + 30_000
	res, err := e.Step(context.Background(), store, notification, someState, rp.ResponseOutcome(503), now)
	if err != nil || res.Decision.Retry == nil {
		t.Fatalf("want a retry, got %+v %v", res, err)
	}
	want := rp.StoreRequest{Op: rp.StoreOpRecordReserve, EndpointID: "ep_42", WindowMs: 60000, Bucket: now / 60000}
	if len(store.requests) != 1 || store.requests[0] != want {
		t.Fatalf("requests %+v, want exactly [%+v]", store.requests, want)
	}
	if res.BudgetDisagreement {
		t.Fatal("empty counts allow the retry: no disagreement")
	}
	store.reply = rp.Reservation{Reserved: false}
	res, err = e.Step(context.Background(), store, notification, someState, rp.ResponseOutcome(503), now)
	if err != nil || res.Decision.Stop == nil || res.Decision.Stop.Reason != rp.StopReasonRetryBudgetExhausted || !res.BudgetDisagreement {
		t.Fatalf("a refusal on counts that allow: retry_budget_exhausted and a disagreement, got %+v %v", res, err)
	}
}

func TestADeliveredFirstAttemptIsRecordedAndAFailedRecordChangesNothing(t *testing.T) {
	e := newEngine(t)
	store := &fakeStore{fail: errors.New("redis: i/o timeout")}
	res, err := e.Step(context.Background(), store, notification, someState, rp.ResponseOutcome(200), firstAt+5)
	if err != nil || res.Decision.Stop == nil || res.Decision.Stop.Reason != rp.StopReasonDelivered || res.StoreErr == nil {
		t.Fatalf("want delivered with the store error reported, got %+v %v", res, err)
	}
	if len(store.requests) != 1 || store.requests[0].Op != rp.StoreOpRecord {
		t.Fatalf("requests %+v, want one record", store.requests)
	}
}

func TestARetryDecidedByAGateMakesNoStoreCall(t *testing.T) {
	e := newEngine(t)
	store := &fakeStore{}
	s := someState
	s.Attempt = 13
	res, err := e.Step(context.Background(), store, notification, s, rp.ResponseOutcome(503), firstAt+5)
	if err != nil || res.Decision.Stop == nil || res.Decision.Stop.Reason != rp.StopReasonMaxAttemptsExhausted || len(store.requests) != 0 {
		t.Fatalf("want max_attempts_exhausted and no store call, got %+v %v %+v", res, err, store.requests)
	}
}

func TestAStoreThatFailsOrPanicsFailsAPendingRetryClosed(t *testing.T) {
	for name, store := range map[string]*fakeStore{"error": {fail: errors.New("refused")}, "panic": {panics: true}} {
		t.Run(name, func(t *testing.T) {
			e := newEngine(t, rp.WithBudgetStore(store), rp.WithClock(rp.ClockFunc(func() uint64 { return firstAt + 10 })))
			s := someState
			s.Attempt = 2
			res, err := e.Step(context.Background(), store, notification, s, rp.ResponseOutcome(503), firstAt+10)
			if err != nil || res.Decision.Stop == nil || res.Decision.Stop.Reason != rp.StopReasonBudgetUnavailable {
				t.Fatalf("Step: want budget_unavailable, got %+v %v", res, err)
			}
			d, err := e.Decide(context.Background(), notification, s, rp.ResponseOutcome(503))
			if err != nil || d.Stop == nil || d.Stop.Reason != rp.StopReasonBudgetUnavailable {
				t.Fatalf("Decide: want budget_unavailable, got %+v %v", d, err)
			}
		})
	}
}

func TestDecideReadsTheClockAndMakesOneStoreCallWithItsContext(t *testing.T) {
	store := &fakeStore{reply: rp.Reservation{Reserved: true}}
	now := firstAt + 30_000
	e := newEngine(t, rp.WithClock(rp.ClockFunc(func() uint64 { return now })), rp.WithBudgetStore(store))
	ctx := context.WithValue(context.Background(), ctxKey{}, "trace-1")
	d, err := e.Decide(ctx, notification, someState, rp.TransportErrorOutcome("connect_timeout"))
	if err != nil || d.Retry == nil {
		t.Fatalf("want a retry, got %+v %v", d, err)
	}
	if len(store.requests) != 1 || store.requests[0].Bucket != now/60000 || store.sawKey != "trace-1" {
		t.Fatalf("requests %+v (ctx value %v)", store.requests, store.sawKey)
	}
}

func TestCancellingTheContextEndsAStepWaitingOnTheStore(t *testing.T) {
	store := &fakeStore{block: true}
	e := newEngine(t, rp.WithBudgetStore(store), rp.WithClock(rp.ClockFunc(func() uint64 { return firstAt + 10 })))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.Step(ctx, store, notification, someState, rp.ResponseOutcome(503), firstAt+10); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Step: want the context's error, got %v", err)
	}
	if _, err := e.Decide(ctx, notification, someState, rp.ResponseOutcome(503)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Decide: want the context's error, got %v", err)
	}
	if _, err := e.ClassifyStatus(context.Background(), 503); err != nil {
		t.Fatalf("the engine must stay usable: %v", err)
	}
}

func TestTheMemoryStoreReservesUntilTheRatioIsReached(t *testing.T) {
	e := newEngine(t)
	store := rp.NewMemoryStore(e)
	ctx := context.Background()
	tight := notification
	tight.Budget.MinSample = 0
	now := firstAt
	var retries, stops int
	for i := 0; i < 100; i++ {
		s := someState
		s.EventID = "evt_" + itoa(uint64(i))
		res, err := e.Step(ctx, store, tight, s, rp.ResponseOutcome(503), now)
		if err != nil || res.BudgetDisagreement {
			t.Fatalf("step %d: %+v %v", i, res, err)
		}
		if res.Decision.Retry != nil {
			retries++
		} else {
			stops++
		}
	}
	// each first attempt is recorded; a retry is reserved while (r+1) <= 0.1 (t+1)
	if retries == 0 || stops == 0 || float64(retries) > 0.1*100+1 {
		t.Fatalf("%d retries and %d budget stops out of 100 first attempts", retries, stops)
	}
}

func TestRetryAfterHeadersAreReadByTheComponent(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	for header, want := range map[string]int64{"120": 120_000, " 7\t": 7_000, "²": -1, "99999999999999999999": 1<<53 - 1, "-1": -1, "": -1} {
		ms, ok, err := e.ParseRetryAfter(ctx, header, firstAt)
		if err != nil || ok != (want >= 0) || (ok && int64(ms) != want) {
			t.Errorf("%q: got %d %v %v, want %d", header, ms, ok, err, want)
		}
	}
}

func TestTheStoreKeyKeepsAnEndpointInOneClusterSlot(t *testing.T) {
	e := newEngine(t)
	k, err := e.StoreKey(context.Background(), rp.StoreRequest{Op: rp.StoreOpReserve, EndpointID: "}{", WindowMs: 60000, Bucket: 3})
	if err != nil || k == "" || k[:4] != "rb:{" {
		t.Fatalf("key %q %v", k, err)
	}
}
