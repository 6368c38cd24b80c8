package main

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/redisbudget"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// budget is where the replica counts attempts: in this process (the
// default) or in the fleet's Redis (fleet/README.md, via redisbudget).
type budget interface {
	// recordFirst counts an event's first attempt, sent at nowMs.
	recordFirst(ctx context.Context, b rp.Budget, endpointID string, nowMs uint64) error
	// decide decides after a failed or successful attempt; a retry it
	// returns is already counted.
	decide(ctx context.Context, p rp.Policy, s rp.DeliveryState, o rp.Outcome, nowMs uint64) (rp.Decision, error)
	roundTrips() uint64
	close() error
}

// memoryBudget: Engine.Decide with the engine's MemoryCounter (the budget
// holds in this process only).
type memoryBudget struct{ engine *rp.Engine }

func (m memoryBudget) recordFirst(ctx context.Context, b rp.Budget, endpointID string, nowMs uint64) error {
	return m.engine.RecordFirstAttempt(ctx, b, endpointID, nowMs)
}

func (m memoryBudget) decide(ctx context.Context, p rp.Policy, s rp.DeliveryState, o rp.Outcome, _ uint64) (rp.Decision, error) {
	return m.engine.Decide(ctx, p, s, o)
}

func (memoryBudget) roundTrips() uint64 { return 0 }
func (memoryBudget) close() error      { return nil }

// redisBudget: the fleet flow, one round trip per first attempt and at
// most one per retry decision. A Redis error fails the budget closed.
type redisBudget struct {
	engine  *rp.Engine
	client  *redis.Client
	counter *redisbudget.Counter
	trips   *tripCounter
}

func newRedisBudget(engine *rp.Engine, redisURL string) (*redisBudget, error) {
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, usageErrorf("--redis %q: %v", redisURL, err)
	}
	// Fail fast while Redis is down (the budget fails closed at once) and
	// let the pool dial again on later calls, so reserves resume when it
	// comes back.
	opts.DialTimeout = 250 * time.Millisecond
	opts.ReadTimeout = 500 * time.Millisecond
	opts.WriteTimeout = 500 * time.Millisecond
	opts.MaxRetries = -1 // no retries inside go-redis: one call, one answer
	opts.DialerRetries = 1
	opts.DialerRetryTimeout = time.Millisecond
	redis.SetLogger(quietLogger{}) // failures are counted and reported once by the replica
	client := redis.NewClient(opts)
	trips := &tripCounter{}
	client.AddHook(trips)
	return &redisBudget{engine: engine, client: client, counter: redisbudget.New(client), trips: trips}, nil
}

func (r *redisBudget) recordFirst(ctx context.Context, b rp.Budget, endpointID string, nowMs uint64) error {
	return r.counter.RecordFirstAttempt(ctx, b, endpointID, nowMs)
}

func (r *redisBudget) decide(ctx context.Context, p rp.Policy, s rp.DeliveryState, o rp.Outcome, nowMs uint64) (rp.Decision, error) {
	return r.counter.Decide(ctx, r.engine, p, s, o, nowMs)
}

func (r *redisBudget) roundTrips() uint64 { return r.trips.n.Load() }
func (r *redisBudget) close() error      { return r.client.Close() }

// quietLogger drops go-redis's own log lines (one per failed dial while
// Redis is down); the replica reports the first failure and the counts.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...interface{}) {}

// tripCounter counts commands Redis answered (a reply or a Redis error
// reply); calls that never reached it (refused, timed out) are not trips.
type tripCounter struct{ n atomic.Uint64 }

func (*tripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (t *tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if answered(err) {
			t.n.Add(1)
		}
		return err
	}
}

func (t *tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if answered(err) {
			t.n.Add(1)
		}
		return err
	}
}

func answered(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) {
		return true
	}
	var re redis.Error
	var ne net.Error
	return errors.As(err, &re) && !errors.As(err, &ne)
}
