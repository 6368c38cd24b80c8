package driver

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/webhookmetrics"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// newMetrics registers the families of the metrics schema of the artifact
// the replica loaded (read once, at start; a swap keeps them).
func newMetrics(ctx context.Context, engine *rp.Engine) (*webhookmetrics.Metrics, error) {
	schema, err := engine.MetricsSchema(ctx)
	if err == nil {
		var m *webhookmetrics.Metrics
		if m, err = webhookmetrics.FromSchema(schema); err == nil {
			return m, nil
		}
	}
	return nil, usageErrorf("policy artifact: %v", err)
}

// showPolicy logs the artifact's load (and, with --watch-artifact-ms or
// --artifact-from-redis, every swap and refusal until ctx ends) on stderr, moves webhook_policy_info and
// webhook_policy_reloads_total, and serves every family of docs/metrics.md
// on --metrics-addr. The returned stop ends both.
//
// version names the current document's version (nil: the artifact's own
// document's); swapped is called after every applied swap.
func showPolicy(ctx context.Context, cfg Config, engine *rp.Engine, version func(rp.ArtifactInfo) string, swapped func(), follow *following, metrics *webhookmetrics.Metrics, stderr io.Writer) (stop func(), err error) {
	info := metrics.ShowPolicy(prefixed{stderr}, version)
	info.Loaded(engine.Info())
	ctx, cancel := context.WithCancel(ctx)
	stops := []func(){cancel}
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	if cfg.MetricsAddr != "" {
		l, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			stop()
			return nil, usageErrorf("--metrics-addr %q: %v", cfg.MetricsAddr, err)
		}
		srv := &http.Server{Handler: metrics.Handler(), ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(l) }()
		stops = append(stops, func() { _ = srv.Close() })
		fmt.Fprintf(stderr, "replica: metrics on http://%s/metrics\n", l.Addr())
	}
	if cfg.WatchPath != "" {
		done := make(chan struct{})
		go func() {
			defer close(done)
			engine.WatchArtifact(ctx, cfg.WatchPath, cfg.WatchInterval, func(ev rp.ArtifactEvent) {
				info.Event(ev)
				if ev.Err == nil {
					swapped()
				}
			})
		}()
		stops = append(stops, func() { <-done })
	}
	if follow != nil { // --artifact-from-redis: the same swap, from the fleet's store
		stops = append(stops, follow.run(ctx, info, swapped))
	}
	return stop, nil
}

// prefixed writes each line with "replica: " in front (the log lines are
// written whole, one per call).
type prefixed struct{ w io.Writer }

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "replica: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}
