package retrypolicy

import (
	"context"
	"fmt"
	"testing"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	b := Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: JitterFull}
	s, err := e.Plan(ctx, b, 900000, 16)
	fmt.Println(s, err)
	fmt.Println(e.Plan(ctx, Backoff{BaseMs: 0, Factor: 2, CapMs: 300000}, 900000, 16))
	fmt.Println(e.Delay(ctx, b, "evt_1", 0))
	fmt.Println(e.ClassifyStatus(ctx, 503))
	fmt.Println(e.ClassifyStatus(ctx, 1000))
	fmt.Println(e.ClassifyError(ctx, "connect_timeout"))
	fmt.Println(e.BudgetAllows(ctx, Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 50}, 0, BudgetCounts{Current: BucketCounts{111, 11}}))
	p := Policy{Backoff: b, WindowMs: 900000, HardCap: 16, Budget: Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 50, Sliding: true}}
	st := DeliveryState{EventID: "evt_1", EndpointID: "ep_42", Attempt: 1, MaxAttempts: 13, FirstAttemptedAtMs: 1700000000000}
	c := BudgetCounts{Current: BucketCounts{1000, 5}, Previous: BucketCounts{1000, 5}}
	d, err := e.DecideWith(ctx, p, st, ResponseOutcome(503), 1700000000100, &c)
	fmt.Printf("%+v %+v %v\n", d.Retry, d.Stop, err)
	d, err = e.DecideWith(ctx, p, st, ResponseOutcome(410), 1700000000100, &c)
	fmt.Printf("%+v %+v %v\n", d.Retry, d.Stop.DeadLetter, err)
	d, err = e.DecideWith(ctx, p, st, ResponseOutcome(503), 1700000000100, nil)
	fmt.Printf("%+v %+v %v\n", d.Retry, d.Stop, err)
	d, err = e.Decide(ctx, p, st, TransportErrorOutcome("connect_timeout"))
	fmt.Printf("%+v %+v %v\n", d.Retry, d.Stop, err)
	doc, err := e.LoadDocument(ctx, []byte(`{"version":"v1","classes":{"notification":{"window_ms":900000,"backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000}}}}`))
	fmt.Printf("%+v %v\n", doc, err)
	fmt.Println(e.LoadDocument(ctx, []byte(`{"classes":{}}`)))
	a, err := e.Admit(ctx, doc, "notification", 1700000000000)
	fmt.Printf("%+v %v\n", a, err)
	fmt.Println(e.Admit(ctx, doc, "nope", 1))
}
