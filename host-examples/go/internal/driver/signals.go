package driver

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// drainSignal is the replica's SIGTERM/SIGINT (docs/replica.md, "SIGTERM
// and SIGINT: drain"): the first signal closes began (the loop then feeds
// the engine drain and gives attempts in progress --drain-ms); a later one
// is ignored (SIGKILL is the operator's hard stop).
type drainSignal struct {
	began chan struct{}
	once  sync.Once
}

func newDrainSignal() *drainSignal { return &drainSignal{began: make(chan struct{})} }

// begin starts the drain (the first call only).
func (d *drainSignal) begin() { d.once.Do(func() { close(d.began) }) }

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
// any later one until the returned stop is called; unless KeepSignals,
// stop gives the signals back.
func (d *drainSignal) onSignals() (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sigs:
				d.begin()
			case <-done:
				return
			}
		}
	}()
	return func() {
		if !KeepSignals {
			signal.Stop(sigs)
			close(done)
		}
	}
}
