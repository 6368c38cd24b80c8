package redisbudget

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/vectors"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var policy = rp.Policy{
	Backoff:  rp.Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: rp.JitterFull},
	WindowMs: 900000, HardCap: 16,
	Budget: rp.Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 3, Sliding: false},
}

const now = uint64(1_800_000_030_000)

func engine(t *testing.T, opts ...rp.Option) *rp.Engine {
	t.Helper()
	e, err := rp.New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

func state(event string, attempt uint32) rp.DeliveryState {
	return rp.DeliveryState{EventID: event, EndpointID: "ep_1", Attempt: attempt, MaxAttempts: 13, FirstAttemptedAtMs: now - 1000}
}

func TestReserveAgreesWithTheComponentOnEveryBudgetVector(t *testing.T) {
	rdb := startRedis(t)
	ctx := context.Background()
	dir := os.Getenv("RETRY_POLICY_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "tests", "vectors")
	}
	files, err := vectors.LoadDir(dir)
	if err != nil {
		t.Skipf("no vectors: %v", err)
	}
	c, n := New(rdb), 0
	for _, f := range files {
		for _, cs := range f.Cases {
			if cs.Op != "budget" {
				continue
			}
			var want struct {
				Allows *bool `json:"allows_retry"`
			}
			_ = json.Unmarshal(cs.Expect, &want)
			in, err := vectors.DecodeBudget(cs.Input)
			if err != nil || want.Allows == nil {
				continue // a refused budget never reaches Redis
			}
			n++
			ep := "vec_" + cs.Name
			bucket := int64(in.NowMs / in.Budget.WindowMs)
			for key, b := range map[string]rp.BucketCounts{
				Key(ep, in.Budget.WindowMs, bucket): in.Counts.Current, Key(ep, in.Budget.WindowMs, bucket-1): in.Counts.Previous,
			} {
				if err := rdb.HSet(ctx, key, "t", b.Total, "r", b.Retries).Err(); err != nil {
					t.Fatal(err)
				}
			}
			counts, reserved, err := c.Reserve(ctx, in.Budget, ep, in.NowMs)
			if err != nil {
				t.Fatalf("%s: %v", cs.Name, err)
			}
			if reserved != *want.Allows || counts != in.Counts {
				t.Errorf("%s: reserved %v on %+v, the vector expects allows_retry %v on %+v", cs.Name, reserved, counts, *want.Allows, in.Counts)
			}
		}
	}
	if n == 0 {
		t.Fatal("no budget vectors ran")
	}
	t.Logf("%d budget vectors through budget.lua", n)
}

func TestDecideReservesOnlyWhenTheBudgetIsTheLastGate(t *testing.T) {
	rdb := startRedis(t)
	ctx := context.Background()
	c, e := New(rdb), engine(t)
	bucketKey := Key("ep_1", 60000, int64(now/60000))
	for i := 0; i < 3; i++ { // three first attempts: the sample floor is met
		if err := c.RecordFirstAttempt(ctx, policy.Budget, "ep_1", now); err != nil {
			t.Fatal(err)
		}
	}
	d, err := c.Decide(ctx, e, policy, state("evt_a", 1), rp.ResponseOutcome(410), now)
	if err != nil || d.Stop == nil || d.Stop.Reason != rp.TerminalResponse {
		t.Fatalf("410: %+v %v", d, err)
	}
	if r, _ := rdb.HGet(ctx, bucketKey, "r").Result(); r != "" {
		t.Fatalf("a terminal outcome must not touch the budget, retries = %q", r)
	}
	// 3 attempts, ratio 0.1: (0+1) <= 0.1*(3+1) is false: refused.
	d, err = c.Decide(ctx, e, policy, state("evt_b", 1), rp.ResponseOutcome(503), now)
	if err != nil || d.Stop == nil || d.Stop.Reason != rp.RetryBudgetExhausted || d.Stop.DeadLetter == nil {
		t.Fatalf("want retry_budget_exhausted, got %+v %v", d, err)
	}
	// With ratio 1 the retry fits and is reserved in Redis.
	p := policy
	p.Budget.Ratio = 1
	d, err = c.Decide(ctx, e, p, state("evt_c", 1), rp.ResponseOutcome(503), now)
	if err != nil || d.Retry == nil {
		t.Fatalf("want a retry, got %+v %v", d, err)
	}
	got, _ := rdb.HMGet(ctx, bucketKey, "t", "r").Result()
	if got[0] != "4" || got[1] != "1" {
		t.Fatalf("after 3 first attempts and one reserved retry: t=%v r=%v", got[0], got[1])
	}
	if ttl := rdb.PTTL(ctx, bucketKey).Val(); ttl <= 0 || ttl > 3*60*time.Second {
		t.Fatalf("the bucket key must expire within 3 windows, PTTL %s", ttl)
	}
}

func TestARedisOutageFailsTheBudgetClosed(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	c, e := New(rdb), engine(t)
	d, err := c.Decide(context.Background(), e, policy, state("evt_x", 1), rp.ResponseOutcome(503), now)
	if err != nil || d.Stop == nil || d.Stop.Reason != rp.BudgetUnavailable {
		t.Fatalf("want budget_unavailable, got %+v %v", d, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Decide(ctx, e, policy, state("evt_x", 1), rp.ResponseOutcome(503), now); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled caller gets its context's error, not a dead letter: %v", err)
	}
}

func TestTheCounterWorksAsTheEnginesBudgetCounterThroughTheImports(t *testing.T) {
	rdb := startRedis(t)
	c := New(rdb)
	p := policy
	p.Budget.Ratio = 1
	e := engine(t, rp.WithBudgetCounter(c), rp.WithClock(rp.ClockFunc(func() uint64 { return now })))
	d, err := e.Decide(context.Background(), p, state("evt_i", 1), rp.TransportErrorOutcome("connect_timeout"))
	if err != nil || d.Retry == nil {
		t.Fatalf("want a retry, got %+v %v", d, err)
	}
	got, _ := rdb.HMGet(context.Background(), Key("ep_1", 60000, int64(now/60000)), "t", "r").Result()
	if got[0] != "1" || got[1] != "1" {
		t.Fatalf("decide must record the retry it schedules: t=%v r=%v", got[0], got[1])
	}
}

func TestReplicasRacingOnOneEndpointNeverExceedTheRatio(t *testing.T) {
	rdb := startRedis(t)
	ctx := context.Background()
	b := rp.Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 0}
	for i := 0; i < 100; i++ {
		if err := New(rdb).RecordFirstAttempt(ctx, b, "ep_race", now); err != nil {
			t.Fatal(err)
		}
	}
	// 50 replicas reserve at once. Serialised by Redis, retries k fit while
	// k+1 <= 0.1*(100+k+1), i.e. k <= 10: exactly 11 reservations.
	var reserved atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := New(rdb).Reserve(ctx, b, "ep_race", now)
			if err != nil {
				t.Error(err)
			}
			if ok {
				reserved.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := reserved.Load(); got != 11 {
		t.Fatalf("%d retries reserved by racing replicas, the ratio allows 11", got)
	}
}
