//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is this process's CPU time so far, all threads (getrusage
// RUSAGE_SELF, user + system).
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
