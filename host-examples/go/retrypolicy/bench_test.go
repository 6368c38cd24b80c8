package retrypolicy_test

import (
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
)

// go test -run '^$' -bench . ./retrypolicy   (or ../bench for a table with ratios)
// The *Baseline benchmarks run the BASELINE Go port (internal/baseline),
// never used by this package, for comparison only.

func BenchmarkEvaluateSettle(b *testing.B)             { bench.EvaluateSettle(b) }
func BenchmarkStep(b *testing.B)                       { bench.Step(b) }
func BenchmarkStepEvaluateSettle(b *testing.B)         { bench.StepEvaluateSettle(b) }
func BenchmarkCompiledStep(b *testing.B)               { bench.CompiledStep(b) }
func BenchmarkStepDecided(b *testing.B)                { bench.StepDecided(b) }
func BenchmarkStepDecidedEvaluateSettle(b *testing.B)  { bench.StepDecidedEvaluateSettle(b) }
func BenchmarkDecide(b *testing.B)                     { bench.Decide(b) }
func BenchmarkDecideMemoryStore(b *testing.B)          { bench.DecideMemoryStore(b) }
func BenchmarkDecideWithWazero(b *testing.B)           { bench.DecideWithWazero(b) }
func BenchmarkDecideWithInterpreter(b *testing.B)      { bench.DecideWithInterpreter(b) }
func BenchmarkDecideWithBaseline(b *testing.B)         { bench.DecideWithBaseline(b) }
func BenchmarkStepParallel(b *testing.B)               { bench.StepParallel(b) }
func BenchmarkDecideWithBaselineParallel(b *testing.B) { bench.DecideWithBaselineParallel(b) }
func BenchmarkCompile(b *testing.B)                    { bench.Compile(b) }
func BenchmarkInstantiate(b *testing.B)                { bench.Instantiate(b) }
func BenchmarkNewEngine(b *testing.B)                  { bench.NewEngine(b) }
func BenchmarkLoopbackPOST(b *testing.B)               { bench.LoopbackPOST(b) }
