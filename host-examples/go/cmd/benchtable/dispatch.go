package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// dispatchRow runs the dispatcher row (internal/bench.Dispatch): a
// warm-up tenth, then `deliveries` attempts measured.
func dispatchRow(deliveries int) (bench.Dispatched, error) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		return bench.Dispatched{}, err
	}
	defer e.Close(ctx)
	srv := bench.ServeMix()
	defer srv.Close()
	if _, err := bench.Dispatch(ctx, e, srv.URL+"/hook", deliveries/10+1); err != nil {
		return bench.Dispatched{}, err
	}
	return bench.Dispatch(ctx, e, srv.URL+"/hook", deliveries)
}

// share is the policy's share of the process's CPU time, percent.
func share(d bench.Dispatched) float64 { return 100 * float64(d.Policy) / float64(d.ProcessCPU) }

// printDispatch prints the dispatcher row's table; stepNs is the
// Engine.Step row of the same run, for comparison.
func printDispatch(w io.Writer, d bench.Dispatched, stepNs float64) {
	per := func(ns int64) float64 { return float64(ns) / float64(d.Deliveries) }
	fmt.Fprintf(w, "dispatcher: one worker, %d deliveries (%d events), loopback, 1 in %d answered 503 else 200, retries at once\tdeliveries/s\tCPU/delivery\tpolicy/delivery\tpolicy %% of CPU\t\n",
		d.Deliveries, d.Events, bench.FailEvery)
	fmt.Fprintf(w, "safehttp POST, httpoutcome, Admit + Engine.Step with MemoryStore (Engine.Step row: %s)\t%.0f\t%s\t%s\t%.2f%%\t\n",
		human(stepNs), float64(d.Deliveries)/d.Wall.Seconds(), human(per(d.ProcessCPU.Nanoseconds())),
		human(per(d.Policy.Nanoseconds())), share(d))
	causes := make([]string, 0, len(d.StopsByCause))
	for c, n := range d.StopsByCause {
		causes = append(causes, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(causes)
	fmt.Fprintf(w, "policy by call: admit %s per event (%s per delivery), Retry-After %s, Engine.Step %s per delivery\t\t\t\t\t\n",
		human(float64(d.Admit.Nanoseconds())/float64(d.Events)), human(per(d.Admit.Nanoseconds())),
		human(per(d.RetryAfter.Nanoseconds())), human(per(d.Step.Nanoseconds())))
	fmt.Fprintf(w, "stops: %s\t\t\t\t\t\n", strings.Join(causes, ", "))
	fmt.Fprintf(w, "(CPU = getrusage user+system of the whole process, the in-process endpoint included)\t\t\t\t\t\n")
}

// goalLine says whether the dispatcher goal of issue 20 is met.
func goalLine(d bench.Dispatched) string {
	verdict := "missed"
	if share(d) <= 2 {
		verdict = "met"
	}
	return fmt.Sprintf("goal: policy <= 2%% of a dispatcher's CPU at full loopback throughput -> %.2f%% %s", share(d), verdict)
}
