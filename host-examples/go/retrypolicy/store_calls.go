package retrypolicy

import (
	"context"
	"fmt"
	"sync"
)

// CallStore answers the complete store calls of ABI 0.3 (StoreCall, from
// Compiled.Advance and Compiled.CallFor), each in ONE call atomic with
// respect to every other call on that key. It never judges a reply. An
// error (unreachable, timeout) is handed to Finish or SettleWake as
// StoreReply{Unavailable: true}. Implementations must be safe for
// concurrent use.
type CallStore interface {
	// Call answers call at nowMs.
	Call(ctx context.Context, call StoreCall, nowMs uint64) (CallReply, error)
}

// MemoryCallStore is a process-local CallStore for formats 2 and 3: every
// call is the component's apply-call on what it holds for the call's key,
// under one mutex (budget buckets and, for format 3, the endpoint's health
// state). Like MemoryStore it holds for one process only.
type MemoryCallStore struct {
	engine *Engine
	mu     sync.Mutex
	held   map[string]HeldHealth
}

// NewMemoryCallStore returns an empty store that applies calls with e.
func NewMemoryCallStore(e *Engine) *MemoryCallStore {
	return &MemoryCallStore{engine: e, held: make(map[string]HeldHealth)}
}

// Call applies call atomically and returns the reply.
func (m *MemoryCallStore) Call(ctx context.Context, call StoreCall, nowMs uint64) (CallReply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, err := m.engine.ApplyCall(ctx, call, nowMs, m.held[call.Key])
	if err != nil {
		return CallReply{}, err
	}
	m.held[call.Key] = a.Held
	return a.Reply, nil
}

// RequestOf is the 0.2 store request a format-2 call maps onto 1:1 (op,
// endpoint, window = the budget's bucket width, bucket), so a BudgetStore
// (the Redis script's 8 arguments, MemoryStore) answers it unchanged. A
// call with health fields, or a report/probe, has no 0.2 form.
func RequestOf(call StoreCall) (StoreRequest, error) {
	r := StoreRequest{EndpointID: call.EndpointID, WindowMs: call.Budget.WindowMs, Bucket: call.Bucket}
	switch {
	case call.Health != nil:
		return r, fmt.Errorf("retrypolicy: a %s call with health fields has no format-2 store request", call.Op)
	case call.Op == CallOpRecord:
		r.Op = StoreOpRecord
	case call.Op == CallOpReserve:
		r.Op = StoreOpReserve
	case call.Op == CallOpRecordReserve:
		r.Op = StoreOpRecordReserve
	default:
		return r, fmt.Errorf("retrypolicy: a %s call has no format-2 store request", call.Op)
	}
	return r, nil
}
