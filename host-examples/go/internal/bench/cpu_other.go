//go:build !unix

package bench

import (
	"errors"
	"time"
)

// processCPU needs getrusage: not on this platform.
func processCPU() (time.Duration, error) {
	return 0, errors.New("process CPU time needs getrusage (unix)")
}
