package retrypolicy

import "time"

// Clock is the host's wall clock, read by Decide through the component's
// `clock` import. It must be the clock the first-attempt instants were
// persisted with. Implementations must be safe for concurrent use.
type Clock interface {
	// NowMs is milliseconds since the Unix epoch.
	NowMs() uint64
}

// ClockFunc adapts a function to Clock.
type ClockFunc func() uint64

// NowMs calls f.
func (f ClockFunc) NowMs() uint64 { return f() }

// SystemClock reads time.Now.
type SystemClock struct{}

// NowMs is time.Now in Unix milliseconds (0 before the epoch).
func (SystemClock) NowMs() uint64 {
	ms := time.Now().UnixMilli()
	if ms < 0 {
		return 0
	}
	return uint64(ms)
}
