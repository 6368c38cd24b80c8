package driver

import (
	"math"
	"time"
)

// paceWait is how long the next admission must still wait under --rate N
// (0: it may go now, or no --rate): the k-th event of this run (k from 0)
// is admitted no earlier than k*1000/N ms after the run started. With
// --deadline-ms the wait ends at the deadline at the latest (admissions
// stop there).
func (d *driver) paceWait(start time.Time) time.Duration {
	if d.cfg.RatePerS <= 0 {
		return 0
	}
	due := time.Duration(math.MaxInt64) // beyond any clock: never admitted
	if ns := float64(d.next) * float64(time.Second) / d.cfg.RatePerS; ns < math.MaxInt64 {
		due = time.Duration(ns)
	}
	due = due.Truncate(time.Millisecond) // whole milliseconds, as the Rust replica counts them
	elapsed := time.Since(start)
	if due <= elapsed {
		return 0
	}
	wake := due
	if d.cfg.DeadlineMs >= 0 {
		wake = min(wake, time.Duration(d.cfg.DeadlineMs)*time.Millisecond)
	}
	return max(wake-elapsed, time.Nanosecond) // the deadline passed meanwhile: the loop ends admitting
}
