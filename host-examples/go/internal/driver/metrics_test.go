package driver

import (
	"context"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
)

// schemaFamily is one row of docs/metrics.md's table.
type schemaFamily struct {
	typ     string
	labels  map[string][]string // label -> its closed set (nil: open)
	buckets []float64
}

// readSchema parses docs/metrics.md: the families table and the buckets.
func readSchema(t *testing.T) map[string]schemaFamily {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "metrics.md"))
	if err != nil {
		t.Fatalf("docs/metrics.md: %v", err)
	}
	name := regexp.MustCompile("^`(webhook_[a-z_]+)`$")
	label := regexp.MustCompile("`([a-z_0-9]+)`( = ([^,]*))?")
	value := regexp.MustCompile("`([a-z_0-9]+)`")
	bucketLine := regexp.MustCompile("^\\* `(webhook_[a-z_]+)`: (.*)")
	families := map[string]schemaFamily{}
	lines := strings.Split(string(raw), "\n")
	for i := 0; i < len(lines); i++ {
		// a table row: | `name` | type | labels | meaning | (\| inside a cell)
		cells := strings.Split(strings.ReplaceAll(lines[i], `\|`, "\x00"), "|")
		if len(cells) >= 5 && name.MatchString(strings.TrimSpace(cells[1])) {
			m := []string{"", name.FindStringSubmatch(strings.TrimSpace(cells[1]))[1], strings.TrimSpace(cells[2]), cells[3]}
			f := schemaFamily{typ: m[2], labels: map[string][]string{}}
			for _, l := range label.FindAllStringSubmatch(m[3], -1) {
				if l[3] == "" {
					f.labels[l[1]] = nil
					continue
				}
				if strings.Contains(l[3], "transport-kinds.json") {
					for _, k := range httpoutcome.TransportKinds() { // TestTheKindConstants... holds them to the JSON
						f.labels[l[1]] = append(f.labels[l[1]], string(k))
					}
					continue
				}
				for _, v := range value.FindAllStringSubmatch(l[3], -1) {
					f.labels[l[1]] = append(f.labels[l[1]], v[1])
				}
			}
			families[m[1]] = f
		}
		if m := bucketLine.FindStringSubmatch(lines[i]); m != nil {
			text := m[2]
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") {
				i++
				text += " " + strings.TrimSpace(lines[i])
			}
			f := families[m[1]]
			for _, b := range strings.Split(text, ",") {
				v, err := strconv.ParseFloat(strings.TrimSpace(b), 64)
				if err != nil {
					t.Fatalf("docs/metrics.md: bucket %q of %s: %v", b, m[1], err)
				}
				f.buckets = append(f.buckets, v)
			}
			f.buckets = append(f.buckets, math.Inf(1)) // implied
			families[m[1]] = f
		}
	}
	if len(families) < 10 {
		t.Fatalf("docs/metrics.md: parsed only %d families", len(families))
	}
	return families
}

// scrapeFamilies GETs /metrics and parses the text format.
func scrapeFamilies(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

func TestTheMetricsAreExactlyTheSchemaOfDocsMetricsMd(t *testing.T) {
	schema := readSchema(t)
	srv, _, _ := always503(t)
	policy := writePolicy(t, "1.0", "1000000")
	var stderr syncBuffer
	engine, cfg := configured(t, "--target", srv.URL, "--endpoint-id", "ep-metrics", "--events", "10",
		"--policy", policy, "--allow-private-targets", "--metrics-addr", "127.0.0.1:0")
	var after map[string]*dto.MetricFamily
	var url string
	cfg.ready = func() {
		m := regexp.MustCompile(`metrics on (http://\S+/metrics)`).FindStringSubmatch(stderr.String())
		if m == nil {
			t.Fatalf("no metrics URL logged: %q", stderr.String())
		}
		url = m[1]
		checkSchema(t, "before any event", schema, scrapeFamilies(t, url))
	}
	cfg.ran = func() { after = scrapeFamilies(t, url) }
	s, err := run(context.Background(), engine, cfg, newDrainSignal(), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, "after the run", schema, after)
	counter := func(name, label, value string) float64 {
		for _, metric := range after[name].GetMetric() {
			for _, l := range metric.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return metric.GetCounter().GetValue()
				}
			}
		}
		return -1
	}
	if counter("webhook_attempts_total", "kind", "first") != float64(s.FirstAttempts) ||
		counter("webhook_attempts_total", "kind", "retry") != float64(s.Retries) ||
		counter("webhook_deadletter_total", "stop_reason", "max_attempts_exhausted") != float64(s.StopReasons["max_attempts_exhausted"]) {
		t.Errorf("the counters disagree with the summary %+v", s)
	}
	if n := after["webhook_delivery_duration_seconds"].GetMetric()[0].GetHistogram().GetSampleCount(); n != s.Attempts {
		t.Errorf("%d delivery durations observed for %d attempts", n, s.Attempts)
	}
}

// checkSchema fails on a missing or extra webhook_* family, another type,
// label set, closed-set value or bucket.
func checkSchema(t *testing.T, when string, schema map[string]schemaFamily, got map[string]*dto.MetricFamily) {
	t.Helper()
	for name := range got {
		if strings.HasPrefix(name, "webhook_") {
			if _, ok := schema[name]; !ok {
				t.Errorf("%s: %s is not in docs/metrics.md", when, name)
			}
		}
	}
	for name, want := range schema {
		fam, ok := got[name]
		if !ok {
			t.Errorf("%s: %s is missing", when, name)
			continue
		}
		if typ := strings.ToLower(fam.GetType().String()); typ != want.typ {
			t.Errorf("%s: %s is a %s, want %s", when, name, typ, want.typ)
		}
		seen := map[string]map[string]bool{}
		for l := range want.labels {
			seen[l] = map[string]bool{}
		}
		for _, metric := range fam.GetMetric() {
			var names []string
			for _, l := range metric.GetLabel() {
				names = append(names, l.GetName())
				if _, ok := want.labels[l.GetName()]; ok {
					seen[l.GetName()][l.GetValue()] = true
				}
			}
			if len(names) != len(want.labels) {
				t.Errorf("%s: %s has labels %v, want %v", when, name, names, keys(want.labels))
			}
			if want.typ == "histogram" {
				var bounds []float64
				for _, b := range metric.GetHistogram().GetBucket() {
					bounds = append(bounds, b.GetUpperBound())
				}
				if !equalFloats(bounds, want.buckets) {
					t.Errorf("%s: %s buckets %v, want %v", when, name, bounds, want.buckets)
				}
			}
		}
		for l, closed := range want.labels {
			for _, v := range closed {
				if !seen[l][v] {
					t.Errorf("%s: %s{%s=%q} is missing", when, name, l, v)
				}
			}
			if closed != nil && len(seen[l]) != len(closed) {
				t.Errorf("%s: %s has %s values %v, want %v", when, name, l, keysBool(seen[l]), closed)
			}
		}
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func keysBool(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
