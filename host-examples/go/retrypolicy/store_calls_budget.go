package retrypolicy

import (
	"context"
	"fmt"
)

// Budget is m as a format-2 KeyedBudgetStore (Step's store): its requests
// are applied to the same held values as the format-3 calls, so classes
// with and without health count one endpoint's attempts in one place, as
// they do in Redis.
func (m *MemoryCallStore) Budget() KeyedBudgetStore { return memoryCallBudget{m} }

type memoryCallBudget struct{ m *MemoryCallStore }

func (b memoryCallBudget) Call(ctx context.Context, r StoreRequest, budget Budget, nowMs uint64) (Reservation, error) {
	key, err := b.m.engine.StoreKey(ctx, r)
	if err != nil {
		return Reservation{}, err
	}
	return b.CallKeyed(ctx, key, r, budget, nowMs)
}

func (b memoryCallBudget) CallKeyed(ctx context.Context, key string, r StoreRequest, budget Budget, nowMs uint64) (Reservation, error) {
	var op CallOp
	switch r.Op {
	case StoreOpRecord:
		op = CallOpRecord
	case StoreOpReserve:
		op = CallOpReserve
	case StoreOpRecordReserve:
		op = CallOpRecordReserve
	default:
		return Reservation{}, fmt.Errorf("retrypolicy: no store op %d", r.Op)
	}
	budget.WindowMs = r.WindowMs
	reply, err := b.m.Call(ctx, StoreCall{Op: op, Key: key, EndpointID: r.EndpointID, Bucket: r.Bucket, Budget: budget}, nowMs)
	if err != nil {
		return Reservation{}, err
	}
	if reply.Reservation == nil {
		return Reservation{}, fmt.Errorf("retrypolicy: apply-call answered a %s call without a reservation", op)
	}
	return *reply.Reservation, nil
}
