// Command dispatcher is an example webhook dispatcher on the Go host: it
// starts three receivers on loopback (healthy, always-503, 410 Gone) plus
// a closed port, admits events under a policy document (the component's
// admit), delivers them over net/http, retries on the policy's schedule,
// dead-letters with the policy's reason, and serves the Prometheus counter
// webhook_deadletter_total{stop_reason} on /metrics. It stops by itself
// when every event is delivered or dead-lettered (a few seconds with the
// "demo" class), then prints the dead letters and the metrics.
//
//	go run ./examples/dispatcher [-class demo] [-events 3] [-store DIR]
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

//go:embed policy.json
var policyJSON []byte

func main() {
	class := flag.String("class", "demo", "event class of the policy document (demo: a 3 s window)")
	perEndpoint := flag.Int("events", 3, "events per endpoint")
	storeDir := flag.String("store", "", "store directory (default: a new temporary one)")
	flag.Parse()
	if err := run(*class, *perEndpoint, *storeDir, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dispatcher:", err)
		os.Exit(1)
	}
}

func run(class string, perEndpoint int, storeDir string, out io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if storeDir == "" {
		dir, err := os.MkdirTemp("", "dispatcher-store-")
		if err != nil {
			return err
		}
		storeDir = dir
	}
	store, err := OpenFileStore(storeDir)
	if err != nil {
		return err
	}
	clock := rp.SystemClock{}
	engine, err := rp.New(ctx, rp.WithClock(clock))
	if err != nil {
		return err
	}
	defer engine.Close(ctx)
	doc, err := engine.LoadDocument(ctx, policyJSON)
	if err != nil {
		return err
	}
	endpoints, err := StartEndpoints("")
	if err != nil {
		return err
	}
	defer endpoints.Close()
	metrics := NewMetrics()
	metricsURL, stopMetrics, err := serveLoopback(metrics.Handler())
	if err != nil {
		return err
	}
	defer stopMetrics()

	d, err := NewDispatcher(Config{Engine: engine, Budget: rp.NewMemoryStore(engine), Document: doc, Store: store, Metrics: metrics,
		Client: newHTTPClient(2 * time.Second), Clock: clock, Sleeper: realSleeper{clock}})
	if err != nil {
		return err
	}
	targets := map[string]string{
		"ep_healthy": endpoints.Healthy.URL + "/hook", "ep_503": endpoints.Unavailable.URL + "/hook",
		"ep_gone": endpoints.Gone.URL + "/hook", "ep_closed": endpoints.Unreachable,
	}
	for _, ep := range []string{"ep_healthy", "ep_503", "ep_gone", "ep_closed"} {
		for i := 0; i < perEndpoint; i++ {
			ev := Event{ID: fmt.Sprintf("evt_%s_%d", ep, i), EndpointID: ep, URL: targets[ep], Class: class,
				Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
			if _, err := d.Enqueue(ctx, ev); err != nil {
				fmt.Fprintf(out, "enqueue %s: %v\n", ev.ID, err)
			}
		}
	}
	fmt.Fprintf(out, "store %s, metrics %s; delivering...\n", storeDir, metricsURL)
	start := time.Now()
	if err := d.RunUntilIdle(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "idle after %.1f s: 503 receiver hit %d times, 410 receiver %d, healthy %d\n\n",
		time.Since(start).Seconds(), endpoints.UnavailableHits.Load(), endpoints.GoneHits.Load(), endpoints.HealthyHits.Load())
	dls, err := store.DeadLetters()
	if err != nil {
		return err
	}
	for _, dl := range dls {
		fmt.Fprintf(out, "dead letter %-18s %-10s %-24s attempts=%-2d elapsed_ms=%-5d last=%s\n",
			dl.EventID, dl.EndpointID, dl.StopReason, dl.Attempts, dl.ElapsedMs, dl.LastOutcome)
	}
	resp, err := http.Get(metricsURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Fprintln(out)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "webhook_") {
			fmt.Fprintln(out, line)
		}
	}
	return nil
}

// serveLoopback serves h on 127.0.0.1 and returns its /metrics URL.
func serveLoopback(h http.Handler) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String() + "/metrics", func() { _ = srv.Close() }, nil
}
