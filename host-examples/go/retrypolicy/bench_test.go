package retrypolicy_test

import (
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
)

// go test -run '^$' -bench . ./retrypolicy   (or ./bench for a table with ratios)
// The *Baseline benchmarks run the BASELINE Go port (internal/baseline),
// never used by this package, for comparison only.

func BenchmarkDecideWithWazero(b *testing.B)           { bench.DecideWithWazero(b) }
func BenchmarkDecideWithBaseline(b *testing.B)         { bench.DecideWithBaseline(b) }
func BenchmarkDecideWithInterpreter(b *testing.B)      { bench.DecideWithInterpreter(b) }
func BenchmarkDecideWithImports(b *testing.B)          { bench.DecideWithImports(b) }
func BenchmarkDecideWithWazeroParallel(b *testing.B)   { bench.DecideWithWazeroParallel(b) }
func BenchmarkDecideWithBaselineParallel(b *testing.B) { bench.DecideWithBaselineParallel(b) }
func BenchmarkCompile(b *testing.B)                    { bench.Compile(b) }
func BenchmarkInstantiate(b *testing.B)                { bench.Instantiate(b) }
func BenchmarkNewEngine(b *testing.B)                  { bench.NewEngine(b) }
