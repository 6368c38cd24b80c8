package retrypolicy_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestTheCompiledStepDecidesAndCallsTheStoreExactlyAsThe02Path(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	outcomes := []rp.AttemptOutcome{rp.ResponseOutcome(200), rp.ResponseOutcome(503), rp.ResponseOutcome(410),
		rp.ResponseOutcome(401), rp.ResponseOutcomeRetryAfter(429, 5000), rp.TransportErrorOutcome("connect_timeout")}
	for _, reserved := range []bool{true, false} {
		for attempt := uint32(1); attempt <= 14; attempt += 3 {
			for i, o := range outcomes {
				for _, late := range []uint64{1000, 899_000, 950_000} {
					s := someState
					s.Attempt, s.EventID = attempt, fmt.Sprintf("evt_%d", i)
					compiled, old := &fakeStore{reply: rp.Reservation{Reserved: reserved}}, &fakeStore{reply: rp.Reservation{Reserved: reserved}}
					got, err := e.Step(ctx, compiled, notification, s, o, firstAt+late)
					want, wantErr := e.StepEvaluateSettle(ctx, old, notification, s, o, firstAt+late)
					if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(compiled.requests, old.requests) || (err == nil) != (wantErr == nil) {
						t.Fatalf("attempt %d, %+v, +%d ms, reserved %v:\ncompiled %+v %+v %v\n0.2      %+v %+v %v",
							attempt, o, late, reserved, got, compiled.requests, err, want, old.requests, wantErr)
					}
				}
			}
		}
	}
}

func TestARefusedPolicyIsRefusedByCompileWithItsCodeAndField(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	bad := notification
	bad.Backoff.Factor = 0.5
	_, err := e.Compile(ctx, bad, nil)
	wantCode(t, err, rp.ErrorCodeInvalidBackoff, "backoff.factor")
	// the default step refuses it as the 0.2 path does
	_, err = e.Step(ctx, &fakeStore{}, bad, someState, rp.ResponseOutcome(503), firstAt)
	wantCode(t, err, rp.ErrorCodeInvalidBackoff, "backoff.factor")
	_, err = e.StepEvaluateSettle(ctx, &fakeStore{}, bad, someState, rp.ResponseOutcome(503), firstAt)
	wantCode(t, err, rp.ErrorCodeInvalidBackoff, "backoff.factor")
	_, err = e.Compile(ctx, notification, &rp.Health{CacheMs: 0, Release: rp.Release{Multiple: 1, FloorPerS: 1}})
	wantCode(t, err, rp.ErrorCodeInvalidDocument, "health.cache_ms")
}

const healthDoc = `{"version": "h1", "health": {"circuit": null}, "classes": {
  "ledger": {"window_ms": 900000, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"},
             "budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 0, "sliding": false}},
  "plain": {"window_ms": 900000, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000}, "health": null}}}`

func TestAFormat3ClassHoldsARefusedRetryThroughAdvanceTheCallStoreAndFinish(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	doc, err := e.LoadHealthDocument(ctx, []byte(healthDoc))
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := e.CompileHealthDocument(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	defer compiled.Close()
	if got := compiled.Classes(); !reflect.DeepEqual(got, []string{"ledger", "plain"}) || compiled.Version != "h1" {
		t.Fatalf("classes %v, version %q", got, compiled.Version)
	}
	ledger, _ := compiled.Class("ledger")
	plain, _ := compiled.Class("plain")
	if ledger.Health() == nil || plain.Health() != nil {
		t.Fatal("ledger has the document's section, plain opted out")
	}
	if _, err := ledger.Step(ctx, &fakeStore{}, someState, rp.ResponseOutcome(503), firstAt); !errors.Is(err, rp.ErrHealthStep) {
		t.Fatalf("Step on a health policy: %v", err)
	}
	a, err := ledger.Admit(ctx, "ledger", doc.Version, firstAt)
	if err != nil || a.PolicyHash != doc.Classes[0].PolicyHash {
		t.Fatalf("admission %+v (%v), the class's hash %s", a, err, doc.Classes[0].PolicyHash)
	}
	// ratio 0.1 with min_sample 0: a retry after one first attempt is over the budget
	store := rp.NewMemoryCallStore(e)
	s := someState
	s.Attempt = 2
	adv, err := ledger.Advance(ctx, s, rp.ResponseOutcome(503), false, firstAt+1000)
	if err != nil || adv.NeedsStore == nil || adv.NeedsStore.Op != rp.CallOpReserve || adv.NeedsStore.Health == nil {
		t.Fatalf("a retry needs the store's reserve with health fields: %+v %v", adv, err)
	}
	reply, err := store.Call(ctx, *adv.NeedsStore, firstAt+1000)
	if err != nil || reply.Reservation == nil || reply.View == nil {
		t.Fatalf("the call store's reply: %+v %v", reply, err)
	}
	fin, err := ledger.Finish(ctx, s, rp.ResponseOutcome(503), firstAt+1000, rp.StoreReply{Answered: reply.Reservation})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Reservation.Reserved || fin.Verdict.Hold == nil {
		t.Fatalf("a refused retry is held (hold_budget_refusals defaults to true): reply %+v, verdict %+v", reply, fin.Verdict)
	}
	call, err := ledger.CallFor(ctx, rp.CallOpReserve, "ep_42", fin.Verdict.Hold.UntilMs)
	if err != nil || call.Op != rp.CallOpReserve || call.Key != adv.NeedsStore.Key {
		t.Fatalf("the wake's reserve: %+v %v", call, err)
	}
	ans, err := ledger.Gate(ctx, rp.GateEvent{EventID: s.EventID, EndpointID: s.EndpointID, Attempts: 1, FirstAttemptedAtMs: firstAt},
		reply.View, rp.Pacer{}, firstAt+1000)
	if err != nil || !ans.Verdict.Send {
		t.Fatalf("the gate of a healthy endpoint sends: %+v %v", ans, err)
	}
}

// keyedStore is a KeyedBudgetStore that records the keys it is handed.
type keyedStore struct {
	fakeStore
	keys []string
}

func (k *keyedStore) CallKeyed(ctx context.Context, key string, r rp.StoreRequest, b rp.Budget, nowMs uint64) (rp.Reservation, error) {
	k.keys = append(k.keys, key)
	return k.Call(ctx, r, b, nowMs)
}

func TestAKeyedStoreIsHandedTheComponentsStoreKeyOfEachRequest(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	store := &keyedStore{fakeStore: fakeStore{reply: rp.Reservation{Reserved: true}}}
	for _, o := range []rp.AttemptOutcome{rp.ResponseOutcome(503), rp.ResponseOutcome(200)} {
		if _, err := e.Step(ctx, store, notification, someState, o, firstAt+5000); err != nil {
			t.Fatal(err)
		}
	}
	if len(store.keys) != 2 || len(store.requests) != 2 {
		t.Fatalf("two first attempts, two keyed calls: keys %v, requests %v", store.keys, store.requests)
	}
	for i, r := range store.requests {
		if want, err := e.StoreKey(ctx, r); err != nil || store.keys[i] != want {
			t.Fatalf("request %+v: key %q, store-key %q (%v)", r, store.keys[i], want, err)
		}
	}
}

func TestAdmitClassGivesAdmitsAdmissionForEveryClassAndAdmitsErrorForAMissingOne(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	doc, err := e.LoadDocument(ctx, []byte(`{"version": "v9", "classes": {
	  "a": {"window_ms": 900000, "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"}},
	  "b": {"window_ms": 3600000, "backoff": {"base_ms": 1000, "factor": 3.0, "cap_ms": 600000, "jitter": "equal"}, "hard_cap": 7,
	        "budget": {"ratio": 0.2, "window_ms": 30000, "min_sample": 5, "sliding": false}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, class := range []string{"a", "b", "a"} {
		want, err := e.Admit(ctx, doc, class, firstAt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.AdmitClass(ctx, doc, class, firstAt)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("class %s: AdmitClass %+v (%v), Admit %+v", class, got, err, want)
		}
	}
	_, err = e.AdmitClass(ctx, doc, "nope", firstAt)
	wantCode(t, err, rp.ErrorCodeUnknownEventClass, "class")
}
