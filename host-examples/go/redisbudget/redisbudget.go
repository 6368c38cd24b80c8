// Package redisbudget is the fleet's retry budget in Redis for the Go
// host: the key schema and the one script of fleet/ (README.md there),
// shared by every host in every language, so replicas count attempts in
// one store and the budget holds fleet-wide.
//
// Two ways to use it:
//
//   - Counter.Decide (recommended): the fleet flow, at most one round trip
//     per attempt. The pure decide-with runs first with no counts; only
//     when the budget is the last gate left does the script check and
//     reserve the retry atomically, and decide-with runs again on the counts
//     the script acted on. Replicas racing on one endpoint cannot overshoot.
//   - Counter as a retrypolicy.BudgetCounter (WithBudgetCounter): Engine.Decide
//     reads and records through the component's imports (two round trips,
//     read then record, not atomic across replicas).
//
// Either way a Redis error fails the budget closed (budget_unavailable).
package redisbudget

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

//go:generate go run ../internal/cmd/embedlua -script ../../../fleet/budget.lua -out budget_lua.go

var script = redis.NewScript(budgetLua)

// Counter counts attempts in Redis under the fleet's key schema.
type Counter struct {
	rdb redis.Scripter
}

// New wraps a go-redis client (a *redis.Client, *redis.ClusterClient or
// *redis.Ring; the keys of one call share a hash slot).
func New(rdb redis.Scripter) *Counter { return &Counter{rdb: rdb} }

// Key is the fleet's bucket key: rb:{<endpoint_id>}:<window_ms>:<bucket>.
func Key(endpointID string, windowMs uint64, bucket int64) string {
	return "rb:{" + endpointID + "}:" + strconv.FormatUint(windowMs, 10) + ":" + strconv.FormatInt(bucket, 10)
}

// result is the script's answer: the counts before its own change.
type result struct {
	counts   rp.BudgetCounts
	reserved bool
}

func (c *Counter) run(ctx context.Context, mode string, endpointID string, windowMs, bucket uint64, args ...any) (result, error) {
	if windowMs == 0 {
		return result{}, errors.New("redisbudget: window_ms is 0")
	}
	keys := []string{Key(endpointID, windowMs, int64(bucket)), Key(endpointID, windowMs, int64(bucket)-1)}
	argv := append([]any{mode}, args...)
	v, err := script.Run(ctx, c.rdb, keys, argv...).Int64Slice()
	if err != nil {
		return result{}, fmt.Errorf("redisbudget: %s: %w", mode, err)
	}
	if len(v) != 5 {
		return result{}, fmt.Errorf("redisbudget: %s: the script returned %d values, want 5", mode, len(v))
	}
	for _, n := range v {
		if n < 0 {
			return result{}, fmt.Errorf("redisbudget: %s: negative count %d", mode, n)
		}
	}
	return result{
		counts: rp.BudgetCounts{
			Current:  rp.BucketCounts{Total: uint64(v[0]), Retries: uint64(v[1])},
			Previous: rp.BucketCounts{Total: uint64(v[2]), Retries: uint64(v[3])},
		},
		reserved: v[4] == 1,
	}, nil
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Read implements retrypolicy.BudgetCounter: the counts of bucket and bucket-1.
func (c *Counter) Read(ctx context.Context, endpointID string, windowMs, bucket uint64) (rp.BudgetCounts, error) {
	r, err := c.run(ctx, "read", endpointID, windowMs, bucket, "0", bucket*windowMs, windowMs)
	return r.counts, err
}

// RecordAttempt implements retrypolicy.BudgetCounter: one attempt (and one
// retry if isRetry) in bucket.
func (c *Counter) RecordAttempt(ctx context.Context, endpointID string, windowMs, bucket uint64, isRetry bool) error {
	_, err := c.run(ctx, "record", endpointID, windowMs, bucket, flag(isRetry), bucket*windowMs, windowMs)
	return err
}

// RecordFirstAttempt counts an event's first attempt, sent at nowMs (step 1
// of the fleet flow). Retries are counted by Decide's reservation.
func (c *Counter) RecordFirstAttempt(ctx context.Context, b rp.Budget, endpointID string, nowMs uint64) error {
	if b.WindowMs == 0 {
		return &rp.PolicyError{Code: rp.CodeInvalidBudget, Field: "budget.window_ms", Message: "must be at least 1 ms"}
	}
	return c.RecordAttempt(ctx, endpointID, b.WindowMs, nowMs/b.WindowMs, false)
}

// Reserve checks the budget and, if it allows, counts the retry, in one
// atomic step; it returns the counts the check saw and whether it reserved.
func (c *Counter) Reserve(ctx context.Context, b rp.Budget, endpointID string, nowMs uint64) (rp.BudgetCounts, bool, error) {
	if b.WindowMs == 0 {
		return rp.BudgetCounts{}, false, &rp.PolicyError{Code: rp.CodeInvalidBudget, Field: "budget.window_ms", Message: "must be at least 1 ms"}
	}
	r, err := c.run(ctx, "reserve", endpointID, b.WindowMs, nowMs/b.WindowMs, "1", nowMs, b.WindowMs,
		strconv.FormatFloat(b.Ratio, 'g', -1, 64), b.MinSample, flag(b.Sliding))
	return r.counts, r.reserved, err
}

// Decide is the fleet flow (fleet/README.md): the pure decide-with without
// counts; if only the budget stands in the way, Reserve, then decide-with
// on the counts the script acted on. A Redis error keeps the first
// answer, budget_unavailable: the budget fails closed. The reserved retry
// is already counted: do not record it when sending it.
func (c *Counter) Decide(ctx context.Context, e *rp.Engine, p rp.Policy, s rp.DeliveryState, o rp.Outcome, nowMs uint64) (rp.Decision, error) {
	first, err := e.DecideWith(ctx, p, s, o, nowMs, nil)
	if err != nil || first.Stop == nil || first.Stop.Reason != rp.BudgetUnavailable {
		return first, err // an earlier gate decided: no round trip
	}
	counts, reserved, err := c.Reserve(ctx, p.Budget, s.EndpointID, nowMs)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return rp.Decision{}, fmt.Errorf("redisbudget: decide: %w", ctxErr)
		}
		return first, nil // fail closed
	}
	d, err := e.DecideWith(ctx, p, s, o, nowMs, &counts)
	if err != nil {
		return d, err
	}
	if (d.Retry != nil) != reserved {
		// The script and the component apply one rule to the same counts;
		// a disagreement is a bug in one of them, never silently accepted.
		return rp.Decision{}, fmt.Errorf("redisbudget: the script reserved=%v but the policy decided %+v on the same counts %+v", reserved, d, counts)
	}
	return d, nil
}
