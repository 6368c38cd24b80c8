package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// dispatchRows runs the dispatcher row (internal/bench.Dispatch) twice:
// the endpoint in this process (its CPU counted with the dispatcher's),
// then in a child process (this process's CPU is the dispatcher's alone).
// Each run: a warm-up tenth, then `deliveries` attempts measured.
func dispatchRows(deliveries int) (inProcess, childEndpoint bench.Dispatched, err error) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		return
	}
	defer e.Close(ctx)
	srv := bench.ServeMix()
	defer srv.Close()
	if inProcess, err = dispatchTo(ctx, e, srv.URL+"/hook", deliveries); err != nil {
		return
	}
	url, stop, err := startMixChild()
	if err != nil {
		return
	}
	defer stop()
	childEndpoint, err = dispatchTo(ctx, e, url+"/hook", deliveries)
	return
}

func dispatchTo(ctx context.Context, e *rp.Engine, url string, deliveries int) (bench.Dispatched, error) {
	if _, err := bench.Dispatch(ctx, e, url, deliveries/10+1); err != nil {
		return bench.Dispatched{}, err
	}
	return bench.Dispatch(ctx, e, url, deliveries)
}

// serveMixChild is the child endpoint: it prints its URL, then serves
// until its standard input closes (the parent is done or gone).
func serveMixChild() {
	srv := bench.ServeMix()
	defer srv.Close()
	fmt.Println(srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// startMixChild starts this program as the child endpoint; stop ends it.
func startMixChild() (url string, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self, "-serve-mix-child")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { _ = stdin.Close(); _ = cmd.Wait() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("endpoint child: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

// share is the policy's share of the process's CPU time, percent.
func share(d bench.Dispatched) float64 { return 100 * float64(d.Policy) / float64(d.ProcessCPU) }

// printDispatch prints the dispatcher rows' table; stepNs is the
// Engine.Step row of the same run, for comparison.
func printDispatch(w io.Writer, in, child bench.Dispatched, stepNs float64) {
	fmt.Fprintf(w, "dispatcher: one worker, %d deliveries to a loopback endpoint (1 in %d answered 503, else 200), retries at once; safehttp POST, httpoutcome, Admit + Engine.Step with MemoryStore\n",
		in.Deliveries, bench.FailEvery)
	fmt.Fprintf(w, "dispatcher row\tdeliveries/s\tCPU/delivery\tpolicy/delivery\tpolicy %% of CPU\t\n")
	rows := []struct {
		name string
		d    bench.Dispatched
	}{{"endpoint in this process (getrusage: endpoint included)", in}, {"endpoint in a child process (the dispatcher's CPU alone)", child}}
	for _, r := range rows {
		per := float64(r.d.Deliveries)
		fmt.Fprintf(w, "%s\t%.0f\t%s\t%s\t%.2f%%\t\n", r.name, per/r.d.Wall.Seconds(),
			human(float64(r.d.ProcessCPU.Nanoseconds())/per), human(float64(r.d.Policy.Nanoseconds())/per), share(r.d))
	}
	fmt.Fprintf(w, "\t\t\t\t\t\n")
	for _, r := range rows {
		d, per := r.d, float64(r.d.Deliveries)
		causes := make([]string, 0, len(d.StopsByCause))
		for c, n := range d.StopsByCause {
			causes = append(causes, fmt.Sprintf("%s %d", c, n))
		}
		sort.Strings(causes)
		fmt.Fprintf(w, "%s: policy by call: admit %s per event (%s per delivery), Retry-After %s, Engine.Step %s per delivery (Engine.Step row: %s); %d events, stops: %s\n",
			r.name[:strings.Index(r.name, " (")], human(float64(d.Admit.Nanoseconds())/float64(d.Events)), human(float64(d.Admit.Nanoseconds())/per),
			human(float64(d.RetryAfter.Nanoseconds())/per), human(float64(d.Step.Nanoseconds())/per), human(stepNs), d.Events, strings.Join(causes, ", "))
	}
}

// goalLine says whether the dispatcher goal of issue 20 is met, judged on
// the row whose process CPU is the dispatcher's alone.
func goalLine(in, child bench.Dispatched) string {
	verdict := "missed"
	if share(child) <= 2 {
		verdict = "met"
	}
	return fmt.Sprintf("goal: policy <= 2%% of a dispatcher's CPU at full loopback throughput -> %.2f%% (%.2f%% with the endpoint in the process) %s",
		share(child), share(in), verdict)
}
