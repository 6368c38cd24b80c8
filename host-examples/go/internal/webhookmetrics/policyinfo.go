package webhookmetrics

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Info is what a replica shows about the policy artifact it runs
// (docs/artifact.md, "What a replica shows"): one log line per load, swap
// and refusal, and the gauge
// webhook_policy_info{artifact_sha256,abi,document_version} 1, whose old
// series disappears when the artifact or the document changes, and
// webhook_policy_reloads_total{result="applied"|"refused"}.
type Info struct {
	gauge   *prometheus.GaugeVec
	reloads *prometheus.CounterVec
	log     io.Writer
	// DocumentVersion is the current document's version ("" when none):
	// the replica's own document, or the artifact's. Called on each change.
	documentVersion func(rp.ArtifactInfo) string

	mu  sync.Mutex
	cur prometheus.Labels
}

// Reloaded counts a policy document or artifact loaded without a restart
// (applied) or refused (the old one kept).
func (p *Info) Reloaded(applied bool) {
	result := "refused"
	if applied {
		result = "applied"
	}
	p.reloads.WithLabelValues(result).Inc()
}

// Loaded logs the first load and sets the gauge.
func (p *Info) Loaded(a rp.ArtifactInfo) {
	v := p.documentVersion(a)
	fmt.Fprintf(p.log, "policy artifact loaded sha256=%s abi=%s document_version=%s source=%s\n", a.SHA256, a.ABI, v, a.Source)
	p.set(a, v)
}

// Event logs what WatchArtifact reported and moves the gauge on a swap.
func (p *Info) Event(ev rp.ArtifactEvent) {
	if ev.Err != nil {
		code, msg := "error", ev.Err.Error()
		var ae *rp.ArtifactError
		if errors.As(ev.Err, &ae) {
			code, msg = string(ae.Code), ae.Message
		}
		fmt.Fprintf(p.log, "policy artifact refused path=%s code=%s: %s; keeping sha256=%s\n", ev.Path, code, msg, ev.Old.SHA256)
		p.Reloaded(false)
		return
	}
	v := p.documentVersion(ev.New)
	fmt.Fprintf(p.log, "policy artifact swapped sha256=%s -> %s abi=%s document_version=%s source=%s\n",
		ev.Old.SHA256, ev.New.SHA256, ev.New.ABI, v, ev.New.Source)
	p.set(ev.New, v)
	p.Reloaded(true)
}

func (p *Info) set(a rp.ArtifactInfo, documentVersion string) {
	labels := prometheus.Labels{"artifact_sha256": a.SHA256, "abi": a.ABI, "document_version": documentVersion}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != nil {
		p.gauge.Delete(p.cur)
	}
	p.gauge.With(labels).Set(1)
	p.cur = labels
}
