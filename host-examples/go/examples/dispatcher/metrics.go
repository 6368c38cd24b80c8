package main

import (
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/policyinfo"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/webhookmetrics"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Metrics are the dispatcher's Prometheus metrics: the families of
// docs/metrics.md (internal/webhookmetrics, a private registry, every
// closed label set from 0) and a rate-limited log of store failures and
// disagreements.
type Metrics struct {
	*webhookmetrics.Metrics
	log *rateLimitedLog
}

// NewMetrics registers every family of docs/metrics.md but the policy's
// (ShowPolicy).
func NewMetrics() *Metrics {
	return &Metrics{Metrics: webhookmetrics.New(), log: newRateLimitedLog(10 * time.Second)}
}

// ShowPolicy registers webhook_policy_info{artifact_sha256,abi,document_version}
// and webhook_policy_reloads_total{result}, and returns what logs the
// artifact's loads and swaps on log and moves them; documentVersion names
// the current document's version.
func (m *Metrics) ShowPolicy(log io.Writer, documentVersion func(rp.ArtifactInfo) string) *policyinfo.Info {
	return m.Metrics.ShowPolicy(prefixedLog{log}, documentVersion)
}

// prefixedLog writes each line with "dispatcher: " in front.
type prefixedLog struct{ w io.Writer }

func (p prefixedLog) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "dispatcher: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// rateLimitedLog prints at most one line per interval and counts the rest.
type rateLimitedLog struct {
	mu         sync.Mutex
	every      time.Duration
	last       time.Time
	suppressed int
}

func newRateLimitedLog(every time.Duration) *rateLimitedLog { return &rateLimitedLog{every: every} }

// Printf logs the line unless one was logged within the interval.
func (l *rateLimitedLog) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := time.Now(); now.Sub(l.last) >= l.every {
		if l.suppressed > 0 {
			format += " (and %d similar since the last line)"
			args = append(args, l.suppressed)
		}
		log.Printf("dispatcher: "+format, args...)
		l.last, l.suppressed = now, 0
		return
	}
	l.suppressed++
}
