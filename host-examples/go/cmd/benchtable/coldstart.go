package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// processStart is as close to the process's start as Go code runs.
var processStart = time.Now()

// coldStartChild is the measured fresh process: New (read the artifact,
// sha256, container, ABI check, compile, imports, first instance,
// abi-version, self-test) and the first decision; it prints the
// milliseconds since the process started.
func coldStartChild(cacheDir string) {
	ctx := context.Background()
	var opts []rp.Option
	if cacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		opts = append(opts, rp.WithCompilationCache(cache))
	} else {
		opts = append(opts, rp.WithCompilationCache(nil)) // the row without a cache (New's default has one)
	}
	e, err := rp.New(ctx, opts...)
	if err == nil {
		_, err = e.Step(ctx, bench.ConstantStore, bench.Policy, bench.State, bench.Outcome, bench.NowMs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%.3f\n", float64(time.Since(processStart).Microseconds())/1000)
}

// coldStart runs n fresh processes and returns the median in-process
// figure and the median exec-to-exit wall time, in ms.
func coldStart(n int, cacheDir string) (inProcess, wall float64, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	var ins, walls []float64
	for i := 0; i < n; i++ {
		cmd := exec.Command(self, "-cold-start-child", "-cache", cacheDir)
		start := time.Now()
		out, err := cmd.Output()
		if err != nil {
			return 0, 0, fmt.Errorf("cold-start child: %w", err)
		}
		walls = append(walls, float64(time.Since(start).Microseconds())/1000)
		v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			return 0, 0, err
		}
		ins = append(ins, v)
	}
	return median(ins), median(walls), nil
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}
