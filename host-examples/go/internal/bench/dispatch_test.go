package bench

import (
	"context"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestTheDispatcherRowMakesExactlyTheAttemptsAskedAndTimesThePolicyInsideTheProcessCPU(t *testing.T) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	srv := ServeMix()
	defer srv.Close()
	d, err := Dispatch(ctx, e, srv.URL+"/hook", 400)
	if err != nil {
		t.Fatal(err)
	}
	if d.Deliveries != 400 {
		t.Fatalf("deliveries %d, want 400", d.Deliveries)
	}
	stopped := 0
	for _, n := range d.StopsByCause {
		stopped += n
	}
	// every event but possibly the last stopped; 1 in 4 answers is a 503, so some retried
	if stopped < d.Events-1 || stopped > d.Events || d.Events >= d.Deliveries || d.StopsByCause["delivered"] == 0 {
		t.Fatalf("events %d, stops %v", d.Events, d.StopsByCause)
	}
	if d.Policy != d.Admit+d.RetryAfter+d.Step || d.Admit <= 0 || d.Step <= 0 || d.RetryAfter <= 0 {
		t.Fatalf("policy time %v = admit %v + retry-after %v + step %v?", d.Policy, d.Admit, d.RetryAfter, d.Step)
	}
	if d.ProcessCPU <= 0 || d.Policy > d.Wall {
		t.Fatalf("process CPU %v, policy %v, wall %v", d.ProcessCPU, d.Policy, d.Wall)
	}
}
