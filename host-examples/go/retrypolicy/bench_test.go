package retrypolicy_test

import (
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
)

// go test -run '^$' -bench . ./retrypolicy   (or ../bench for a table with ratios)

func BenchmarkEvaluateSettle(b *testing.B)    { bench.EvaluateSettle(b) }
func BenchmarkStep(b *testing.B)              { bench.Step(b) }
func BenchmarkStepDecided(b *testing.B)       { bench.StepDecided(b) }
func BenchmarkStepInterpreter(b *testing.B)   { bench.StepInterpreter(b) }
func BenchmarkStepParallel(b *testing.B)      { bench.StepParallel(b) }
func BenchmarkDecide(b *testing.B)            { bench.Decide(b) }
func BenchmarkDecideMemoryStore(b *testing.B) { bench.DecideMemoryStore(b) }
func BenchmarkAdmitDocument(b *testing.B)     { bench.AdmitDocument(b) }
func BenchmarkCompile(b *testing.B)           { bench.Compile(b) }
func BenchmarkInstantiate(b *testing.B)       { bench.Instantiate(b) }
func BenchmarkNewEngine(b *testing.B)         { bench.NewEngine(b) }
func BenchmarkLoopbackPOST(b *testing.B)      { bench.LoopbackPOST(b) }
