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
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/driver"
)

// DispatchConcurrency is the dispatcher row's --concurrency: events in
// progress at once (a retry's wait holds its slot).
const DispatchConcurrency = 64

// dispatchRun is one run of the dispatcher row: the program's figures and
// this process's CPU time around it.
type dispatchRun struct {
	driver.BenchRun
	ProcessCPU time.Duration
}

// dispatchRows runs the dispatcher row (internal/driver.Bench) twice:
// the endpoint in this process (its CPU counted with the dispatcher's),
// then in a child process (this process's CPU is the dispatcher's alone).
// Each run: a warm-up tenth, then `events` events measured.
func dispatchRows(events int) (inProcess, childEndpoint dispatchRun, err error) {
	ctx := context.Background()
	srv := bench.ServeMix()
	defer srv.Close()
	if inProcess, err = dispatchTo(ctx, srv.URL+"/hook", events); err != nil {
		return
	}
	url, stop, err := startMixChild()
	if err != nil {
		return
	}
	defer stop()
	childEndpoint, err = dispatchTo(ctx, url+"/hook", events)
	return
}

func dispatchTo(ctx context.Context, url string, events int) (dispatchRun, error) {
	if _, err := driver.Bench(ctx, url, bench.DispatchDocument, events/10+1, DispatchConcurrency); err != nil {
		return dispatchRun{}, err
	}
	cpu0, err := bench.ProcessCPU()
	if err != nil {
		return dispatchRun{}, err
	}
	r, err := driver.Bench(ctx, url, bench.DispatchDocument, events, DispatchConcurrency)
	if err != nil {
		return dispatchRun{}, err
	}
	cpu1, err := bench.ProcessCPU()
	return dispatchRun{BenchRun: r, ProcessCPU: cpu1 - cpu0}, err
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

// share is the engine's share of the process's CPU time, percent (the
// time inside its calls, which is CPU time while the process has a core).
func share(d dispatchRun) float64 { return 100 * float64(d.InEngine) / float64(d.ProcessCPU) }

// printDispatch prints the dispatcher rows' table.
func printDispatch(w io.Writer, in, child dispatchRun) {
	fmt.Fprintf(w, "dispatcher: the program (internal/driver: the delivery engine, in-memory store, no journal), %d events to a loopback endpoint (1 in %d answered 503, else 200), --concurrency %d\n",
		in.Events, bench.FailEvery, DispatchConcurrency)
	fmt.Fprintf(w, "dispatcher row\tevents/s\tCPU/event\tengine/event\tengine %% of CPU\tcrossings/event\t\n")
	rows := []struct {
		name string
		d    dispatchRun
	}{{"endpoint in this process (getrusage: endpoint included)", in}, {"endpoint in a child process (the dispatcher's CPU alone)", child}}
	for _, r := range rows {
		per := float64(r.d.Events)
		fmt.Fprintf(w, "%s\t%.0f\t%s\t%s\t%.2f%%\t%.2f\t\n", r.name, per/r.d.Wall.Seconds(),
			human(float64(r.d.ProcessCPU.Nanoseconds())/per), human(float64(r.d.InEngine.Nanoseconds())/per), share(r.d),
			float64(r.d.Crossings)/per)
	}
	fmt.Fprintf(w, "\t\t\t\t\t\t\n")
	for _, r := range rows {
		causes := make([]string, 0, len(r.d.Stops))
		for c, n := range r.d.Stops {
			if n > 0 {
				causes = append(causes, fmt.Sprintf("%s %d", c, n))
			}
		}
		sort.Strings(causes)
		fmt.Fprintf(w, "%s: %d events, %d attempts, stops: %s\n", r.name[:strings.Index(r.name, " (")], r.d.Events, r.d.Attempts, strings.Join(causes, ", "))
	}
}

// goalLine says whether the dispatcher goal of issue 20 is met, judged on
// the row whose process CPU is the dispatcher's alone.
func goalLine(in, child dispatchRun) string {
	verdict := "missed"
	if share(child) <= 2 {
		verdict = "met"
	}
	return fmt.Sprintf("goal: policy (the engine) <= 2%% of a dispatcher's CPU at full loopback throughput -> %.2f%% (%.2f%% with the endpoint in the process) %s",
		share(child), share(in), verdict)
}
