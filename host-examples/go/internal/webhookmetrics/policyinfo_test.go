package webhookmetrics

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestASwapReplacesTheInfoSeriesAndEveryChangeIsOneLogLine(t *testing.T) {
	reg := prometheus.NewRegistry()
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "webhook_policy_info",
		Help: "The policy artifact this replica runs (always 1): its sha256, WIT package and the current document's version."},
		[]string{"artifact_sha256", "abi", "document_version"})
	counter := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_policy_reloads_total",
		Help: "Policy documents or artifacts loaded without a restart (refused: invalid, the old one kept)."}, []string{"result"})
	reg.MustRegister(gauge, counter)
	var log bytes.Buffer
	p := &Info{gauge: gauge, reloads: counter, log: &log, documentVersion: func(rp.ArtifactInfo) string { return "doc-7" }}
	a := rp.ArtifactInfo{SHA256: strings.Repeat("a", 64), ABI: rp.ABI, Source: "embedded"}
	b := rp.ArtifactInfo{SHA256: strings.Repeat("b", 64), ABI: rp.ABI, Source: "/etc/policy.wasm"}
	p.Loaded(a)
	p.Event(rp.ArtifactEvent{Path: b.Source, Old: a, New: b})
	refused := &rp.ArtifactError{Code: rp.ArtifactInvalid, Message: "truncated at byte 9"}
	p.Event(rp.ArtifactEvent{Path: b.Source, Old: b, New: b, Err: errors.Join(refused)})
	want := `# HELP webhook_policy_info The policy artifact this replica runs (always 1): its sha256, WIT package and the current document's version.
# TYPE webhook_policy_info gauge
webhook_policy_info{abi="webhook:retry-policy@1.0.0",artifact_sha256="` + b.SHA256 + `",document_version="doc-7"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "webhook_policy_info"); err != nil {
		t.Fatal(err)
	}
	reloads := `# HELP webhook_policy_reloads_total Policy documents or artifacts loaded without a restart (refused: invalid, the old one kept).
# TYPE webhook_policy_reloads_total counter
webhook_policy_reloads_total{result="applied"} 1
webhook_policy_reloads_total{result="refused"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(reloads), "webhook_policy_reloads_total"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	wantLines := []string{
		"policy artifact loaded sha256=" + a.SHA256 + " abi=webhook:retry-policy@1.0.0 document_version=doc-7 source=embedded",
		"policy artifact swapped sha256=" + a.SHA256 + " -> " + b.SHA256 + " abi=webhook:retry-policy@1.0.0 document_version=doc-7 source=/etc/policy.wasm",
		"policy artifact refused path=/etc/policy.wasm code=artifact_invalid: truncated at byte 9; keeping sha256=" + b.SHA256,
	}
	if len(lines) != len(wantLines) {
		t.Fatalf("log:\n%s", log.String())
	}
	for i := range lines {
		if lines[i] != wantLines[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], wantLines[i])
		}
	}
}
