package driver

import (
	"context"
	"os/signal"
	"syscall"
)

// drainSignal is the replica's SIGTERM/SIGINT (docs/replica.md, "SIGTERM
// and SIGINT: drain"): the first signal closes began (the loop then feeds
// the engine drain and gives attempts in progress --drain-ms); a later one
// is ignored (SIGKILL is the operator's hard stop). Until onSignals, began
// never closes (tests, the benchmark).
type drainSignal struct{ began <-chan struct{} }

func newDrainSignal() *drainSignal { return &drainSignal{began: make(chan struct{})} }

// stopped reports whether the drain began.
func (d *drainSignal) stopped() bool {
	select {
	case <-d.began:
		return true
	default:
		return false
	}
}

// KeepSignals leaves SIGTERM and SIGINT caught after the run (a program's
// main sets it, so a late signal cannot kill it after its summary; a test
// calling Main releases them).
var KeepSignals bool

// onSignals begins the drain on the first SIGTERM or SIGINT and ignores
// any later one (signal.NotifyContext keeps them caught) until the
// returned stop is called; unless KeepSignals, stop gives the signals back.
func (d *drainSignal) onSignals() (stop func()) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	d.began = ctx.Done()
	if KeepSignals {
		return func() {}
	}
	return stop
}
