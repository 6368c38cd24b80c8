package retrypolicy

import (
	"context"
	"sync"
)

// BudgetCounter is the host's budget store: per-endpoint attempt counts in
// buckets of windowMs, indexed by bucket = now / windowMs (the component
// computes bucket during Decide; see RecordFirstAttempt for first attempts).
//
// Decide calls it through the component's `budget-counter` import, with the
// context given to Decide, so a networked store (Redis) can honour
// deadlines and cancellation. An error from Read or RecordAttempt makes the
// decision budget_unavailable (the budget fails closed), never a failed
// call. Implementations must be safe for concurrent use.
type BudgetCounter interface {
	// Read returns the counts of bucket and bucket-1 for the endpoint.
	Read(ctx context.Context, endpointID string, windowMs, bucket uint64) (BudgetCounts, error)
	// RecordAttempt counts one attempt in bucket, and one retry if isRetry.
	RecordAttempt(ctx context.Context, endpointID string, windowMs, bucket uint64, isRetry bool) error
}

// MemoryCounter is a process-local BudgetCounter: each endpoint keeps only
// its two newest buckets, so memory is bounded by the number of endpoints.
// A budget kept in one process does not hold across replicas; a fleet
// shares one store instead (Redis, see the fleet/ folder).
type MemoryCounter struct {
	mu        sync.Mutex
	endpoints map[string]*bucketPair
}

type bucketPair struct {
	newest, older   uint64 // bucket indexes
	newestN, olderN BucketCounts
}

// NewMemoryCounter returns an empty counter.
func NewMemoryCounter() *MemoryCounter {
	return &MemoryCounter{endpoints: make(map[string]*bucketPair)}
}

func (p *bucketPair) get(bucket uint64) BucketCounts {
	switch bucket {
	case p.newest:
		return p.newestN
	case p.older:
		return p.olderN
	}
	return BucketCounts{}
}

// Read returns the counts of bucket and bucket-1.
func (c *MemoryCounter) Read(_ context.Context, endpointID string, _, bucket uint64) (BudgetCounts, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.endpoints[endpointID]
	if !ok {
		return BudgetCounts{}, nil
	}
	out := BudgetCounts{Current: p.get(bucket)}
	if bucket > 0 {
		out.Previous = p.get(bucket - 1)
	}
	return out, nil
}

// RecordAttempt counts one attempt (and one retry if isRetry) in bucket.
// Buckets older than the two newest are no longer read and are dropped.
func (c *MemoryCounter) RecordAttempt(_ context.Context, endpointID string, _, bucket uint64, isRetry bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.endpoints[endpointID]
	if !ok {
		// older wraps to MaxUint64 for bucket 0: a bucket nobody asks for.
		p = &bucketPair{newest: bucket, older: bucket - 1}
		c.endpoints[endpointID] = p
	}
	if bucket > p.newest {
		if bucket == p.newest+1 {
			p.older, p.olderN = p.newest, p.newestN
		} else {
			p.older, p.olderN = bucket-1, BucketCounts{}
		}
		p.newest, p.newestN = bucket, BucketCounts{}
	}
	var slot *BucketCounts
	switch bucket {
	case p.newest:
		slot = &p.newestN
	case p.older:
		slot = &p.olderN
	default:
		return nil // older than both kept buckets: nobody reads it any more
	}
	slot.Total++
	if isRetry {
		slot.Retries++
	}
	return nil
}
