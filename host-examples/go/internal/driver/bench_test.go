package driver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTheDriverDeliversEventsToALoopbackEndpoint runs the program
// (the in-memory store, no journal, --concurrency 8) on b.N events to a
// loopback endpoint answering 200: wall and process CPU per delivered
// event, engine crossings (feed and resume calls) per delivered event and
// the time spent inside them (the engine's work plus the JSON both ways).
func BenchmarkTheDriverDeliversEventsToALoopbackEndpoint(b *testing.B) {
	for _, store := range []bool{false, true} {
		name := "no journal"
		if store {
			name = "--store journal"
		}
		b.Run(name, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
			defer srv.Close()
			args := []string{"--target", srv.URL, "--endpoint-id", "ep-bench", "--events", strconv.Itoa(b.N),
				"--policy", writePolicy(b, "0.1", "50"), "--allow-private-targets"}
			if store {
				args = append(args, "--store", b.TempDir()+"/bench.journal")
			}
			engine, cfg := configured(b, args...)
			var crossings uint64
			var cpu0 time.Duration
			var start time.Time
			var inEngine time.Duration
			cfg.crossings, cfg.inEngine = &crossings, &inEngine
			cfg.ready = func() { cpu0, start = processCPU(), time.Now(); b.ResetTimer() }
			s, err := run(context.Background(), engine, cfg, newDrainSignal(), &bytes.Buffer{})
			b.StopTimer()
			if err != nil || s.StopReasons["delivered"] != uint64(b.N) {
				b.Fatalf("%v: %+v", err, s)
			}
			n := float64(b.N)
			b.ReportMetric(float64(time.Since(start).Microseconds())/n, "µs/event")
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/n, "cpu-µs/event")
			b.ReportMetric(float64(crossings)/n, "crossings/event")
			b.ReportMetric(float64(inEngine.Microseconds())/n, "engine-µs/event")
		})
	}
}

func TestBenchRunsTheProgramToTheEndAndCountsItsEngineCalls(t *testing.T) {
	var n atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%4 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	doc := `{"version":"b","classes":{"storm":{"window_ms":900000,"hard_cap":16,
	  "backoff":{"base_ms":1,"factor":2.0,"cap_ms":10,"jitter":"full"},
	  "budget":{"ratio":0.1,"window_ms":60000,"min_sample":50,"sliding":true}}}}`
	r, err := Bench(context.Background(), srv.URL, doc, 400, 16)
	if err != nil {
		t.Fatal(err)
	}
	stopped := uint64(0)
	for _, v := range r.Stops {
		stopped += v
	}
	if r.Events != 400 || stopped != 400 || r.Attempts != n.Load() || r.Attempts <= 400 || r.Stops["delivered"] == 0 {
		t.Fatalf("%+v; the endpoint saw %d requests", r, n.Load())
	}
	if r.Crossings == 0 || r.InEngine <= 0 || r.InEngine > r.Wall {
		t.Fatalf("crossings %d, %v in the engine of %v", r.Crossings, r.InEngine, r.Wall)
	}
}
