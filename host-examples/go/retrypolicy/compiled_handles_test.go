package retrypolicy

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// idle is the generation's idle instances (the test holds none).
func idle(e *Engine) []*instance {
	p := &e.cur.Load().pool
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*instance(nil), p.idle...)
}

// busy takes n instances at once, so each has to be a distinct one, and runs fn on each.
func onInstances(t *testing.T, e *Engine, n int, fn func(in *instance)) {
	t.Helper()
	ctx := context.Background()
	var held []*instance
	for range n {
		in, err := e.acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, in)
	}
	for _, in := range held {
		fn(in)
		var err error
		e.done(ctx, "test", in, &err)
	}
}

func TestAPolicyIsCompiledInEachInstanceItRunsOnAndDiscardedInEachOnClose(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, WithMaxIdle(3))
	c, err := e.Compile(ctx, swapPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	handles := map[*instance]uint32{}
	onInstances(t, e, 3, func(in *instance) {
		h, err := in.handleFor(ctx, c.s)
		if err != nil {
			t.Fatal(err)
		}
		handles[in] = h
	})
	if len(handles) != 3 || c.s.live() != 3 {
		t.Fatalf("3 instances, handles %v, live %d", handles, c.s.live())
	}
	_ = c.Close()
	if _, err := c.Advance(ctx, swapState(), ResponseOutcome(503), false, 1); !errors.Is(err, ErrCompiledClosed) {
		t.Fatalf("a call after Close: %v", err)
	}
	// each instance discards when next acquired: the guest then refuses the old handle
	onInstances(t, e, 3, func(in *instance) {
		h, ok := handles[in]
		if !ok {
			t.Fatal("a new instance: the pool lost one")
		}
		if in.hasPending.Load() || len(in.handles) != 0 {
			t.Fatalf("acquired with discards pending (%v) or handles left %v", in.hasPending.Load(), in.handles)
		}
		_, err := in.callAdvance(ctx, h, ptr(swapState()), ptr(ResponseOutcome(503)), false, 1)
		var pe *PolicyError
		if !errors.As(err, &pe) || pe.Code != ErrorCodeInvalidInput || pe.Field != "handle" {
			t.Fatalf("the discarded handle %d: %v", h, err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestASwapNeverUsesAHandleOfTheOldArtifactsInstances(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, WithArtifact(embeddedArtifact))
	c, err := e.Compile(ctx, swapPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	old := idle(e)
	if len(old) == 0 || c.s.live() == 0 {
		t.Fatal("Compile compiled in no instance")
	}
	next := another("compiled")
	if _, err := e.SwapArtifact(ctx, next, ""); err != nil {
		t.Fatal(err)
	}
	if c.s.live() != 0 {
		t.Fatalf("the old artifact's instances closed, yet %d still hold a handle", c.s.live())
	}
	res, err := c.Step(ctx, NewMemoryStore(e), swapState(), ResponseOutcome(503), 1000)
	if err != nil || res.Decision.Retry == nil {
		t.Fatalf("a step after the swap: %+v %v", res, err)
	}
	c.s.mu.Lock()
	for in := range c.s.insts {
		if in.gen != e.cur.Load() {
			t.Error("a handle in an instance of the old artifact")
		}
	}
	c.s.mu.Unlock()
}

func TestStepCompilesOncePerPolicyValueAndAnotherValueCompilesAnew(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	store := NewMemoryStore(e)
	for i := range 20 {
		if _, err := e.Step(ctx, store, swapPolicy, swapState(), ResponseOutcome(503), uint64(1000+i)); err != nil {
			t.Fatal(err)
		}
	}
	first := e.compiled.m[swapPolicy]
	if len(e.compiled.m) != 1 || first == nil || first.s.live() != 1 {
		t.Fatalf("20 sequential steps of one policy: %d cached, live %d", len(e.compiled.m), first.s.live())
	}
	other := swapPolicy
	other.HardCap = 3
	if _, err := e.Step(ctx, store, other, swapState(), ResponseOutcome(503), 1000); err != nil {
		t.Fatal(err)
	}
	if len(e.compiled.m) != 2 || e.compiled.m[swapPolicy] != first {
		t.Fatalf("another policy value: %d cached", len(e.compiled.m))
	}
	bad := swapPolicy
	bad.HardCap = 0
	if _, err := e.Step(ctx, store, bad, swapState(), ResponseOutcome(503), 1000); err == nil || len(e.compiled.m) != 2 {
		t.Fatalf("a refused policy is not cached: %v, %d cached", err, len(e.compiled.m))
	}
}

func TestACompiledPolicyNobodyHoldsIsClosedByItsCleanup(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	c, err := e.Compile(ctx, swapPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.s
	c = nil
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("an unreferenced Compiled was never closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConcurrentStepsCloseAndSwapsNeverUseADiscardedOrForeignHandle(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t, WithArtifact(embeddedArtifact), WithMaxIdle(2))
	store := NewMemoryStore(e)
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for g := range 4 {
		go func() {
			p := swapPolicy
			p.HardCap = uint32(10 + g%2) // two policy values
			for i := 0; ; i++ {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				if _, err := e.Step(ctx, store, p, swapState(), ResponseOutcome(503), uint64(1000+i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 20 {
		c, err := e.Compile(ctx, swapPolicy, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Advance(ctx, swapState(), ResponseOutcome(200), false, 1000); err != nil {
			t.Fatal(err)
		}
		_ = c.Close()
		if i%5 == 4 {
			if _, err := e.SwapArtifact(ctx, another("racing"+string(rune('a'+i))), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatalf("a step while compiling, closing and swapping: %v", err)
		}
	}
}
