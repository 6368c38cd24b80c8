// Command benchtable runs the Go host's benchmarks in one process and
// prints them as a table with ratios: a decision through wazero against
// the BASELINE plain Go port (internal/baseline, for comparison only), and
// the module's compile and instantiate times in decisions' worth.
//
//	go run ./cmd/benchtable        (or host-examples/go/bench)
package main

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"text/tabwriter"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
)

type row struct {
	name string
	fn   func(*testing.B)
	res  testing.BenchmarkResult
}

func ns(r testing.BenchmarkResult) float64 { return float64(r.T.Nanoseconds()) / float64(r.N) }

func human(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1f ms", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2f µs", v/1e3)
	}
	return fmt.Sprintf("%.0f ns", v)
}

func main() {
	testing.Init()
	decisions := []*row{
		{name: "decide-with, BASELINE Go port", fn: bench.DecideWithBaseline},
		{name: "decide-with, wazero compiler", fn: bench.DecideWithWazero},
		{name: "decide (clock + counter imports), wazero compiler", fn: bench.DecideWithImports},
		{name: "decide-with, wazero interpreter", fn: bench.DecideWithInterpreter},
	}
	parallel := []*row{
		{name: "decide-with, BASELINE, parallel", fn: bench.DecideWithBaselineParallel},
		{name: "decide-with, wazero compiler, parallel", fn: bench.DecideWithWazeroParallel},
	}
	startup := []*row{
		{name: "compile the core module", fn: bench.Compile},
		{name: "instantiate one more instance", fn: bench.Instantiate},
		{name: "retrypolicy.New (imports, compile, instance, ABI check)", fn: bench.NewEngine},
	}
	load := "n/a"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil && len(b) > 14 {
		load = string(b[:14]) // other work on the machine skews the figures
	}
	start := time.Now()
	for _, group := range [][]*row{decisions, parallel, startup} {
		for _, r := range group {
			r.res = testing.Benchmark(r.fn)
			if r.res.N == 0 {
				fmt.Fprintf(os.Stderr, "benchtable: %s failed\n", r.name)
				os.Exit(1)
			}
		}
	}
	base, wz := ns(decisions[0].res), ns(decisions[1].res)

	fmt.Printf("Go host benchmarks (%s/%s, GOMAXPROCS=%d, %s), one run of %.0f s; load average before: %s\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.Version(), time.Since(start).Seconds(), load)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(w, "one decision (503, attempt 3, every gate passed)\tper decision\tallocs\tvs BASELINE\t")
	for _, r := range decisions {
		fmt.Fprintf(w, "%s\t%s\t%d\t%.1fx\t\n", r.name, human(ns(r.res)), r.res.AllocsPerOp(), ns(r.res)/base)
	}
	fmt.Fprintf(w, "%s decisions from %d goroutines\t\t\t\t\n", "parallel:", runtime.GOMAXPROCS(0))
	pbase := ns(parallel[0].res)
	for _, r := range parallel {
		fmt.Fprintf(w, "%s\t%s\t%d\t%.1fx\t\n", r.name, human(ns(r.res)), r.res.AllocsPerOp(), ns(r.res)/pbase)
	}
	w.Flush()
	fmt.Println()
	w = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(w, "startup\ttime\tallocated\t= wazero decisions\t")
	for _, r := range startup {
		fmt.Fprintf(w, "%s\t%s\t%d KiB\t%.0f\t\n", r.name, human(ns(r.res)), r.res.AllocedBytesPerOp()/1024, ns(r.res)/wz)
	}
	w.Flush()
}
