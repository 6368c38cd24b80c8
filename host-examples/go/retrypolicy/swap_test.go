package retrypolicy

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"
)

var swapPolicy = Policy{Backoff: Backoff{BaseMs: 1000, Factor: 2, CapMs: 60000, Jitter: JitterFull}, WindowMs: 900000, HardCap: 16,
	Budget: Budget{Ratio: 0.5, WindowMs: 60000, MinSample: 10, Sliding: true}}

func swapState() DeliveryState {
	return DeliveryState{EventID: "evt_swap", EndpointID: "ep_swap", Attempt: 1, MaxAttempts: 10, FirstAttemptedAtMs: 1}
}

func TestASwapReplacesTheArtifactForLaterCalls(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, WithArtifact(embeddedArtifact))
	next := another("swap")
	info, err := e.SwapArtifact(ctx, next, digest(next))
	if err != nil {
		t.Fatal(err)
	}
	if info.SHA256 != digest(next) || e.Info() != info || info.Source != "bytes" {
		t.Fatalf("after the swap: returned %+v, Info %+v", info, e.Info())
	}
	if c, err := e.ClassifyStatus(ctx, 503); err != nil || c != OutcomeClassRetryable {
		t.Fatalf("a call after the swap: %v %v", c, err)
	}
}

func TestABadArtifactKeepsTheOldOneAndSaysWhy(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, WithArtifact(embeddedArtifact))
	before := e.Info()
	_, err := e.SwapArtifact(ctx, embeddedArtifact[:5000], "")
	wantCode(t, err, ArtifactInvalid, "truncated")
	_, err = e.SwapArtifact(ctx, another("pinned"), digest(embeddedArtifact))
	wantCode(t, err, ArtifactSHA256Mismatch)
	_, err = e.SwapArtifact(ctx, tinyComponent(ABIVersion), "")
	wantCode(t, err, ArtifactSelfTestFailed)
	_, err = e.SwapArtifactFile(ctx, "/nonexistent/artifact.wasm", "")
	wantCode(t, err, ArtifactUnreadable)
	if e.Info() != before {
		t.Fatalf("a refused swap changed the artifact: %+v -> %+v", before, e.Info())
	}
	if _, err := e.Decide(ctx, swapPolicy, swapState(), ResponseOutcome(503)); err != nil {
		t.Fatalf("the old artifact no longer answers: %v", err)
	}
}

// blockingStore holds the first call until release is closed.
type blockingStore struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *blockingStore) Call(context.Context, StoreRequest, Budget, uint64) (Reservation, error) {
	b.once.Do(func() { close(b.entered); <-b.release })
	return Reservation{Reserved: true}, nil
}

func TestACallInFlightFinishesOnTheInstanceItBeganOnAndTheOldArtifactThenCloses(t *testing.T) {
	ctx := context.Background()
	store := &blockingStore{entered: make(chan struct{}), release: make(chan struct{})}
	e := newEngine(t, WithArtifact(embeddedArtifact), WithBudgetStore(store))
	old := e.cur.Load()
	done := make(chan error, 1)
	go func() {
		_, err := e.Decide(ctx, swapPolicy, swapState(), ResponseOutcome(503))
		done <- err
	}()
	<-store.entered // Decide is inside the old artifact's instance, waiting on the store
	if _, err := e.SwapArtifact(ctx, another("inflight"), ""); err != nil {
		t.Fatal(err)
	}
	if e.cur.Load() == old || !old.retired.Load() || old.inFlight.Load() != 1 {
		t.Fatalf("after the swap: old current %v, retired %v, in flight %d", e.cur.Load() == old, old.retired.Load(), old.inFlight.Load())
	}
	if _, err := e.ClassifyStatus(ctx, 200); err != nil { // later calls run on the new artifact meanwhile
		t.Fatal(err)
	}
	close(store.release)
	if err := <-done; err != nil {
		t.Fatalf("the call in flight: %v", err)
	}
	if old.inFlight.Load() != 0 || old.pool.len() != 0 {
		t.Fatalf("the old artifact still holds %d calls, %d idle instances", old.inFlight.Load(), old.pool.len())
	}
	ran := false
	old.closeOnce.Do(func() { ran = true })
	if ran {
		t.Fatal("the old artifact was not closed after its last call")
	}
}

func TestTheWatcherSwapsAChangedFileAndReportsARefusedOneOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := writeFile(t, embeddedArtifact)
	e := newEngine(t, WithArtifactPath(path))
	events := make(chan ArtifactEvent, 16)
	go e.WatchArtifact(ctx, path, 5*time.Millisecond, func(ev ArtifactEvent) { events <- ev })
	next := another("watched")
	replace(t, path, next)
	ev := <-events
	if ev.Err != nil || ev.New.SHA256 != digest(next) || ev.Old.SHA256 != digest(embeddedArtifact) || e.Info().SHA256 != digest(next) {
		t.Fatalf("swap event %+v, info %+v", ev, e.Info())
	}
	replace(t, path, embeddedArtifact[:1000])
	ev = <-events
	wantCode(t, ev.Err, ArtifactInvalid)
	time.Sleep(60 * time.Millisecond) // a dozen polls of the same refused file
	select {
	case ev := <-events:
		t.Fatalf("the refused file was reported again: %+v", ev)
	default:
	}
	if e.Info().SHA256 != digest(next) {
		t.Fatal("a refused file replaced the artifact")
	}
	replace(t, path, embeddedArtifact)
	if ev := <-events; ev.Err != nil || ev.New.SHA256 != digest(embeddedArtifact) {
		t.Fatalf("swap back: %+v", ev)
	}
}

// replace writes b next to path and renames it over path, as deploys do.
func replace(t *testing.T, path string, b []byte) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentCallsDuringRepeatedSwapsAllSucceed(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, WithArtifact(embeddedArtifact))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := e.Decide(ctx, swapPolicy, swapState(), ResponseOutcome(503)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var olds []*generation
	for i := 0; i < 6; i++ {
		olds = append(olds, e.cur.Load())
		if _, err := e.SwapArtifact(ctx, another(string(rune('a'+i))), ""); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a call during the swaps: %v", err)
	}
	for i, g := range olds {
		if g.inFlight.Load() != 0 || g.pool.len() != 0 || g.applyPool.len() != 0 {
			t.Errorf("retired artifact %d still holds calls or instances", i)
		}
	}
}

func TestTheEnvironmentsPinPinsEverySwapAsItPinsTheLoad(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, WithArtifact(embeddedArtifact))
	before := e.Info()
	t.Setenv(EnvArtifactSHA256, digest(embeddedArtifact))
	next := another("env-pinned")
	_, err := e.SwapArtifact(ctx, next, "")
	wantCode(t, err, ArtifactSHA256Mismatch, digest(next), digest(embeddedArtifact))
	if e.Info() != before {
		t.Fatalf("a refused swap changed the artifact: %+v", e.Info())
	}
	// The caller's own pin wins over the environment's.
	if _, err := e.SwapArtifact(ctx, next, digest(next)); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvArtifactSHA256, "not-a-sha256")
	_, err = e.SwapArtifact(ctx, embeddedArtifact, "")
	wantCode(t, err, ArtifactPinInvalid)
}
