package main

import (
	"fmt"
	"io"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
)

// engineRow is the delivery engine's row (rp.DeliveryEngine): one
// delivered event, two batches through the component.
var engineRow = &row{name: "delivery engine: feed [admit] + feed [result 200], memory_store", fn: bench.DeliveryEngineEvent}

// printEngine prints the delivery engine's row: per delivered event, per
// feed (one crossing), and the crossings an event takes.
func printEngine(w io.Writer, r *row) {
	fmt.Fprintln(w, "one delivered event through the delivery engine\tper event\tper feed\tcrossings/event\tallocs\tCPU per event\t")
	fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%.1f µs\t\n", r.name, human(ns(r.best)), human(ns(r.best)/bench.EngineCrossings),
		bench.EngineCrossings, r.best.AllocsPerOp(), r.best.Extra["cpu-µs/event"])
}
