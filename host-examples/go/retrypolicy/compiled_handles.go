package retrypolicy

import (
	"context"
	"sync"
	"sync/atomic"
)

// Handles live in the instance that compiled them (each instance has its
// own table in the guest, at most 65535 live handles), and an Engine runs
// many instances: a pool per artifact generation, replaced wholesale by a
// swap. So a Compiled is compiled lazily in each instance it runs on, and
// the bookkeeping is two-sided:
//
//   - instance.handles maps a compiled policy to its handle in that
//     instance. Only the goroutine holding the instance reads or writes it
//     (the pool hands an instance to one goroutine at a time).
//   - compiledState.insts lists the instances holding a handle of it, under
//     its mutex, so Close can reach them.
//
// Close cannot call discard on an instance another goroutine is using, so
// it queues the handle on the instance (instance.queueDiscard); whoever
// acquires the instance next discards the queued handles first
// (instance.drainDiscards). An instance that closes (its generation was
// swapped out or retired, its pool was full, a trap broke it) takes its
// table with it and tells each compiled policy to forget it: a handle of
// an old artifact's instance is never used again, and the new artifact's
// instances compile their own.

// compiledState is what instances refer to (not the *Compiled the caller
// holds, so a Compiled nobody references can be collected and its cleanup
// run).
type compiledState struct {
	e      *Engine
	policy Policy
	health *Health

	mu     sync.Mutex
	closed bool
	insts  map[*instance]uint32
}

// pendingDiscard is a handle queued for discard in an instance.
type pendingDiscard struct {
	s      *compiledState
	handle uint32
}

// instanceHandles is the per-instance side (embedded in instance).
type instanceHandles struct {
	handles    map[*compiledState]uint32
	pendingMu  sync.Mutex
	pending    []pendingDiscard
	hasPending atomic.Bool
}

// handleFor is s's handle in in, compiling it there on first use. The
// caller holds in (acquire). A closed s is ErrCompiledClosed.
func (in *instance) handleFor(ctx context.Context, s *compiledState) (uint32, error) {
	if h, ok := in.handles[s]; ok {
		return h, nil
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return 0, ErrCompiledClosed
	}
	h, err := in.callCompile(ctx, &s.policy, s.health)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed { // closed while compiling: this instance is ours, discard at once
		if err := in.callDiscard(ctx, h); err != nil {
			return 0, err
		}
		return 0, ErrCompiledClosed
	}
	if in.handles == nil {
		in.handles = make(map[*compiledState]uint32)
	}
	in.handles[s] = h
	s.insts[in] = h
	return h, nil
}

// queueDiscard asks in to discard h of s when it is next acquired.
func (in *instance) queueDiscard(s *compiledState, h uint32) {
	in.pendingMu.Lock()
	in.pending = append(in.pending, pendingDiscard{s, h})
	in.hasPending.Store(true)
	in.pendingMu.Unlock()
}

// drainDiscards discards the handles queued on in (the caller holds in);
// false when the guest failed (the instance must then be closed).
func (in *instance) drainDiscards(ctx context.Context) bool {
	in.pendingMu.Lock()
	pending := in.pending
	in.pending = nil
	in.hasPending.Store(false)
	in.pendingMu.Unlock()
	for _, p := range pending {
		if in.handles[p.s] == p.handle {
			delete(in.handles, p.s)
		}
		if err := in.callDiscard(ctx, p.handle); err != nil {
			return false
		}
	}
	return true
}

// forgetHandles tells every compiled policy with a handle in in that in is
// closing (its table goes with it).
func (in *instance) forgetHandles() {
	for s := range in.handles {
		s.mu.Lock()
		delete(s.insts, in)
		s.mu.Unlock()
	}
	in.handles = nil
}

// close forgets s everywhere: each instance holding a handle of s
// discards it when next acquired. Idempotent.
func (s *compiledState) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	for in, h := range s.insts {
		in.queueDiscard(s, h)
	}
	s.insts = nil
}

// live is how many instances hold a handle of s (for tests).
func (s *compiledState) live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.insts)
}
