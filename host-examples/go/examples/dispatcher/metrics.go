package main

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/policyinfo"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Metrics are the dispatcher's Prometheus metrics, in their own registry.
type Metrics struct {
	registry      *prometheus.Registry
	deadLetters   *prometheus.CounterVec
	delivered     prometheus.Counter
	disagreements prometheus.Counter
	storeErrors   prometheus.Counter
	refused       prometheus.Counter
	secretReloads prometheus.Counter
	log           *rateLimitedLog
}

// NewMetrics registers webhook_deadletter_total{stop_reason} (every
// reason but delivered starts at 0, so dashboards see them all) and
// webhook_delivered_total, webhook_budget_disagreements_total,
// webhook_budget_store_errors_total, webhook_destination_refused_total and
// webhook_signing_secret_reloads_total.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		deadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "webhook_deadletter_total",
			Help: "Events dead-lettered, by the policy's stop reason.",
		}, []string{"stop_reason"}),
		delivered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "webhook_delivered_total",
			Help: "Events delivered.",
		}),
		disagreements: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "webhook_budget_disagreements_total",
			Help: "Store replies whose verdict differed from the policy's rule on the same counts (settle's budget_disagreement).",
		}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "webhook_budget_store_errors_total",
			Help: "Budget store calls that failed or timed out (a pending retry then fails closed).",
		}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "webhook_destination_refused_total",
			Help: "Attempts refused before connecting: the target resolved to a loopback, private, link-local... address.",
		}),
		secretReloads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "webhook_signing_secret_reloads_total",
			Help: "Signing secrets reloaded before a retry the policy asked to refresh credentials for.",
		}),
		log: newRateLimitedLog(10 * time.Second),
	}
	m.registry.MustRegister(m.deadLetters, m.delivered, m.disagreements, m.storeErrors, m.refused, m.secretReloads)
	for _, r := range rp.StopReasonValues() {
		if r != rp.StopReasonDelivered {
			m.deadLetters.WithLabelValues(r.String())
		}
	}
	return m
}

// ShowPolicy registers webhook_policy_info{artifact_sha256,abi,document_version}
// and returns what logs the artifact's loads and swaps on log and moves
// the gauge; documentVersion names the current document's version.
func (m *Metrics) ShowPolicy(log io.Writer, documentVersion func(rp.ArtifactInfo) string) *policyinfo.Info {
	return policyinfo.New(m.registry, prefixedLog{log}, documentVersion)
}

// prefixedLog writes each line with "dispatcher: " in front.
type prefixedLog struct{ w io.Writer }

func (p prefixedLog) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "dispatcher: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	return mux
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
