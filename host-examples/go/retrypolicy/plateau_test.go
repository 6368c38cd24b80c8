package retrypolicy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// plateauCalls is 10^5 by default; FUZZ_LONG=1 makes it 10^6, and
// PLATEAU_CALLS=n sets it.
func plateauCalls(t *testing.T) int {
	if v := os.Getenv("PLATEAU_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 40 {
			t.Fatalf("PLATEAU_CALLS=%q: want a number >= 40", v)
		}
		return n
	}
	if os.Getenv("FUZZ_LONG") == "1" {
		return 1_000_000
	}
	return 100_000
}

type plateauSample struct {
	calls        int
	guest, apply uint32 // linear memory of the engine's instance and its store-apply instance
	heap, sys    uint64 // Go heap in use, and obtained from the OS
	elapsed      time.Duration
}

// idleInstance is the one idle instance of p (the plateau runs one call at a time).
func idleInstance(t *testing.T, p *pool) *instance {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) != 1 {
		t.Fatalf("%d idle instances, want 1", len(p.idle))
	}
	return p.idle[0]
}

// Plateau: mixed calls cycling every export (refusals too, event ids up to
// 4 KiB, a refused document over 1 MiB every 20,000 calls) through one
// Engine with one idle instance per pool, sampling each instance's linear
// memory (api.Memory.Size) and the Go heap (runtime.ReadMemStats). The
// guest memory must not grow over the second half of the calls, and no
// instance may be replaced (a trap or an ABI error would replace it). The
// figures print with -v.
func TestGuestMemoryLevelsOffOverMixedCallsOfEveryExport(t *testing.T) {
	ctx := context.Background()
	calls := plateauCalls(t)
	e, err := New(ctx, WithMaxIdle(1), WithClock(ClockFunc(func() uint64 { return 1_700_000_000_000 })))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	p := seedPolicy
	doc, err := e.LoadDocument(ctx, []byte(`{"version":"plateau","classes":{"c":{"window_ms":3600000,"backoff":{"base_ms":1000,"factor":2,"cap_ms":300000}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	huge := []byte(`{"classes":{"c":` + strings.Repeat(" ", 1<<20) + `}}`)
	long := "evt_" + strings.Repeat("x", 4092)
	held := HeldBuckets{}
	if _, err := e.StoreApply(ctx, seedRequest, p.Budget, 1, held); err != nil {
		t.Fatal(err)
	}
	guestIn, applyIn := idleInstance(t, &e.cur.Load().pool), idleInstance(t, &e.cur.Load().applyPool)
	var samples []plateauSample
	start := time.Now()
	sample := func(n int) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		samples = append(samples, plateauSample{n, guestIn.mem.Size(), applyIn.mem.Size(), ms.HeapAlloc, ms.HeapSys, time.Since(start)})
	}
	sample(0)
	refused := 0
	for i := 1; i <= calls; i++ {
		id := "evt_" + strconv.Itoa(i)
		if i%997 == 0 {
			id = long[:4096-i%2000]
		}
		s := DeliveryState{EventID: id, EndpointID: "ep_" + strconv.Itoa(i%13), Attempt: 1 + uint32(i%12), MaxAttempts: 12, FirstAttemptedAtMs: 1_699_999_000_000}
		now := 1_699_999_000_000 + uint64(i%5000)*1000
		o := TransportErrorOutcome("read_timeout")
		if i%5 != 0 {
			o = ResponseOutcome([]uint16{503, 429, 500, 200, 410, 401}[i%6])
			if i%7 == 0 {
				o = ResponseOutcomeRetryAfter(503, 30_000)
			}
		}
		counts := &BudgetCounts{Current: BucketCounts{Total: 50, Retries: 3}, Previous: BucketCounts{Total: 20, Retries: 1}}
		var err error
		switch i % 16 {
		case 0:
			_, err = e.Evaluate(ctx, p, s, o, now)
		case 1:
			reply := StoreReply{Unavailable: true}
			if i%3 == 0 {
				reply = StoreReply{Answered: &Reservation{Reserved: true, Counts: *counts}}
			}
			_, err = e.Settle(ctx, p, s, o, now, reply)
		case 2:
			_, err = e.Evaluate(ctx, p, s, ResponseOutcome(uint16(i%700)), now) // refused below 100 and above 599
		case 3:
			_, err = e.DestinationRefusal(ctx, "10."+strconv.Itoa(i%256)+".0.1")
		case 4:
			_, err = e.Step(ctx, e.store, p, s, o, now)
		case 5:
			_, err = e.Decide(ctx, p, s, o)
		case 6:
			s.Attempt = 0 // refused: invalid_state
			_, err = e.Evaluate(ctx, p, s, o, now)
		case 7:
			header := strconv.Itoa(i)
			if i%2 == 0 {
				header = "Sun, 06 Nov 2094 08:49:37 GMT"
			}
			_, _, err = e.ParseRetryAfter(ctx, header, now)
		case 8:
			r := StoreRequest{Op: StoreOp(i % 3), EndpointID: s.EndpointID, WindowMs: 10_000, Bucket: now / 10_000}
			if _, err = e.StoreKey(ctx, r); err == nil {
				var a Applied
				a, err = e.StoreApply(ctx, r, p.Budget, now, held)
				held = a.Held
			}
		case 9:
			_, err = e.Plan(ctx, p.Backoff, p.WindowMs, uint32(i%40)) // refused above the hard cap's limit or at 0
		case 10:
			_, err = e.ReadTarget(ctx, "https://"+id+".example/hook") // refused past a label's 63 bytes
		case 11:
			_, err = e.ClassifyStatus(ctx, uint16(i%700)) // refused below 100 and above 599
		case 12:
			kind := "connect_timeout"
			if i%2 == 0 {
				kind = id
			}
			_, err = e.ClassifyError(ctx, kind)
		case 13:
			_, err = e.LoadHealthDocument(ctx, []byte(`{"classes":{"c":{"window_ms":60000,"backoff":{"base_ms":1000,"factor":2,"cap_ms":8000}}},"health":{"cache_ms":`+strconv.Itoa(i%3)+`}}`))
		case 14:
			if i%1000 == 14 {
				_, err = e.Admit(ctx, doc, "c", now)
			} else {
				_, err = e.Admit(ctx, doc, "unknown", now) // refused: unknown_event_class
			}
		case 15:
			switch {
			case i%20_000 == 15:
				_, err = e.LoadDocument(ctx, huge) // refused: document_too_large
			case i%2 == 1:
				_, err = e.ABIVersion(ctx)
			default:
				bad := p
				bad.Backoff.Factor = 0 // refused: invalid_backoff
				_, err = e.Evaluate(ctx, bad, s, o, now)
			}
		}
		var pe *PolicyError
		var answer *answerError
		if errors.As(err, &pe) || errors.As(err, &answer) {
			refused++
		} else if err != nil {
			t.Fatalf("call %d (kind %d): %v", i, i%16, err)
		}
		if i%(calls/20) == 0 || i == calls {
			sample(i)
		}
	}
	if idleInstance(t, &e.cur.Load().pool) != guestIn || idleInstance(t, &e.cur.Load().applyPool) != applyIn {
		t.Fatal("an instance was replaced: a call trapped or its answer was malformed")
	}
	last := samples[len(samples)-1]
	t.Logf("%d calls (%d refused) in %v: %.2f us per call", calls, refused, last.elapsed.Round(time.Millisecond), float64(last.elapsed.Microseconds())/float64(calls))
	t.Logf("%9s %12s %12s %10s %10s %9s", "calls", "guest KiB", "apply KiB", "heap MiB", "sys MiB", "us/call")
	prev := plateauSample{}
	for _, s := range samples {
		per := "-"
		if s.calls > prev.calls {
			per = fmt.Sprintf("%.2f", float64((s.elapsed-prev.elapsed).Microseconds())/float64(s.calls-prev.calls))
		}
		t.Logf("%9d %12d %12d %10.1f %10.1f %9s", s.calls, s.guest/1024, s.apply/1024, float64(s.heap)/(1<<20), float64(s.sys)/(1<<20), per)
		prev = s
	}
	if refused == 0 {
		t.Fatal("no call was refused: the mix lost its refusals")
	}
	var half plateauSample
	for _, s := range samples {
		if s.calls >= calls/2 {
			half = s
			break
		}
	}
	if last.guest != half.guest || last.apply != half.apply {
		t.Fatalf("guest memory grew over the second half: %d -> %d KiB (store-apply instance %d -> %d KiB)",
			half.guest/1024, last.guest/1024, half.apply/1024, last.apply/1024)
	}
}
