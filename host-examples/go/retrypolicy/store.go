package retrypolicy

import (
	"context"
	"fmt"
	"sync"
)

// BudgetStore answers the store requests of the delivery step (record,
// reserve, record-reserve), each in ONE call atomic with respect to every
// other call on that endpoint. It never judges a reply: a shared store
// runs the fleet script (fleet/budget.lua, under StoreKey's key), an
// in-memory one the component's store-apply (MemoryStore). An error (unreachable, timeout) makes a
// pending retry budget_unavailable; it never fails the call.
// Implementations must be safe for concurrent use.
type BudgetStore interface {
	// Call answers r; b and nowMs are what a reserve judges with.
	Call(ctx context.Context, r StoreRequest, b Budget, nowMs uint64) (Reservation, error)
}

// BudgetStoreFunc adapts a function to BudgetStore.
type BudgetStoreFunc func(ctx context.Context, r StoreRequest, b Budget, nowMs uint64) (Reservation, error)

// Call calls f.
func (f BudgetStoreFunc) Call(ctx context.Context, r StoreRequest, b Budget, nowMs uint64) (Reservation, error) {
	return f(ctx, r, b, nowMs)
}

// MemoryStore is a process-local BudgetStore: every request is the
// component's store-apply on what it holds for that endpoint and bucket
// width, under one mutex. It keeps two buckets per endpoint and width, so
// memory is bounded by the endpoints seen. A budget kept in one process
// does not hold across replicas; a fleet shares one store (Redis:
// redisbudget, which the delivery engine's store calls drive).
type MemoryStore struct {
	engine *Engine
	mu     sync.Mutex
	held   map[memoryKey]HeldBuckets
}

type memoryKey struct {
	endpoint string
	windowMs uint64
}

// NewMemoryStore returns an empty store that applies requests with e.
func NewMemoryStore(e *Engine) *MemoryStore {
	return &MemoryStore{engine: e, held: make(map[memoryKey]HeldBuckets)}
}

// Call applies r atomically and returns the reply for Settle.
func (m *MemoryStore) Call(ctx context.Context, r StoreRequest, b Budget, nowMs uint64) (Reservation, error) {
	k := memoryKey{r.EndpointID, r.WindowMs}
	m.mu.Lock()
	defer m.mu.Unlock()
	a, err := m.engine.StoreApply(ctx, r, b, nowMs, m.held[k])
	if err != nil {
		return Reservation{}, err
	}
	m.held[k] = a.Held
	return a.Reply, nil
}

// hostImports implements the world's imports with the Engine's Clock and
// BudgetStore (generated worldImports).
type hostImports struct{ e *Engine }

func (h hostImports) clockNowMs(context.Context) uint64 { return h.e.clock.NowMs() }

func (h hostImports) budgetStoreCall(ctx context.Context, r StoreRequest, b Budget, nowMs uint64) (res Reservation, err error) {
	return callStore(ctx, h.e.store, r, b, nowMs)
}

// callStore calls s, turning a panic into an error: a broken store then
// fails the budget closed rather than crashing the host.
func callStore(ctx context.Context, s BudgetStore, r StoreRequest, b Budget, nowMs uint64) (res Reservation, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("budget store panicked: %v", p)
		}
	}()
	return s.Call(ctx, r, b, nowMs)
}
