// Package redisbudget is the fleet's retry budget in Redis for the Go host:
// a retrypolicy.BudgetStore that answers each store request of the
// delivery step (record, reserve, record_reserve) with ONE EVALSHA of
// fleet/budget.lua, the script every host in every language loads
// (fleet/README.md). The key is the component's store-key of the request,
// so replicas of every language count in one place, and one endpoint's
// counts live in one Redis Cluster slot.
//
//	store := redisbudget.New(rdb, engine)
//	res, err := engine.Step(ctx, store, policy, state, outcome, nowMs)
//
// Any error (Redis down, hung past the timeout, a skewed clock refused by
// the script, NOSCRIPT twice) is returned as is: the step then treats the
// store as unavailable, which fails a pending retry closed
// (budget_unavailable) and changes nothing for a first attempt's record.
// This package never judges a reply: the script's verdict goes to Settle.
package redisbudget

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

//go:generate go run ../internal/cmd/embedlua -script ../../../fleet/budget.lua -out budget_lua.go

// DefaultTimeout bounds every store call.
const DefaultTimeout = 250 * time.Millisecond

var script = redis.NewScript(budgetLua)

var _ rp.KeyedBudgetStore = (*Store)(nil)

// Store is a retrypolicy.BudgetStore in Redis.
type Store struct {
	rdb       redis.Scripter
	engine    *rp.Engine
	timeout   time.Duration
	skewCheck bool
}

// Option configures New.
type Option func(*Store)

// WithTimeout bounds every store call (default DefaultTimeout). The
// go-redis client must honour context deadlines: build it with
// ClientOptions, or set ContextTimeoutEnabled yourself.
func WithTimeout(d time.Duration) Option { return func(s *Store) { s.timeout = d } }

// WithoutSkewCheck turns off the script's clock check (on by default: a
// caller whose now_ms is more than window_ms/4 away from Redis TIME gets an
// error, so a skewed replica fails closed instead of counting in the wrong
// bucket). Off only for tests that replay fixed instants.
func WithoutSkewCheck() Option { return func(s *Store) { s.skewCheck = false } }

// New returns a Store over rdb (a *redis.Client, *redis.ClusterClient or
// *redis.Ring); e computes the keys (store-key).
func New(rdb redis.Scripter, e *rp.Engine, opts ...Option) *Store {
	s := &Store{rdb: rdb, engine: e, timeout: DefaultTimeout, skewCheck: true}
	for _, o := range opts {
		o(s)
	}
	return s
}

// LoadScript loads fleet/budget.lua into Redis's script cache (SCRIPT LOAD,
// on every master of a cluster), so even the first store call is one
// EVALSHA. Optional: a NOSCRIPT is answered by one EVAL anyway; call it at
// start and only log an error (Redis may be down then; calls fail closed).
func (s *Store) LoadScript(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := script.Load(ctx, s.rdb).Err(); err != nil {
		return fmt.Errorf("redisbudget: SCRIPT LOAD: %w", err)
	}
	return nil
}

// ClientOptions are go-redis options for a budget store at addr: every
// dial, read and write bounded by timeout, and context deadlines honoured.
func ClientOptions(addr string, timeout time.Duration) *redis.Options {
	return &redis.Options{
		Addr: addr, DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout, PoolTimeout: timeout,
		ContextTimeoutEnabled: true, MaxRetries: -1, DisableIdentity: true, Protocol: 2,
	}
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Call answers r with one EVALSHA (on NOSCRIPT nothing ran, so the same
// command is sent once more as EVAL with the script), under the
// component's store-key of r.
func (s *Store) Call(ctx context.Context, r rp.StoreRequest, b rp.Budget, nowMs uint64) (rp.Reservation, error) {
	key, err := s.engine.StoreKey(ctx, r)
	if err != nil {
		return rp.Reservation{}, fmt.Errorf("redisbudget: store key: %w", err)
	}
	return s.CallKeyed(ctx, key, r, b, nowMs)
}

// CallKeyed is Call under key, the store-key the compiled step already
// has (retrypolicy.KeyedBudgetStore): no store-key call.
func (s *Store) CallKeyed(ctx context.Context, key string, r rp.StoreRequest, b rp.Budget, nowMs uint64) (rp.Reservation, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	keys := []string{key}
	args := []any{r.Op.String(), r.Bucket, r.WindowMs, nowMs, strconv.FormatFloat(b.Ratio, 'g', -1, 64), b.MinSample, flag(b.Sliding), flag(s.skewCheck)}
	v, err := s.rdb.EvalSha(ctx, script.Hash(), keys, args...).Int64Slice()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		v, err = s.rdb.Eval(ctx, budgetLua, keys, args...).Int64Slice()
	}
	if err != nil {
		return rp.Reservation{}, fmt.Errorf("redisbudget: %s: %w", r.Op, err)
	}
	return parseReply(v)
}

// parseReply reads {reserved, cur_total, cur_retries, prev_total, prev_retries}.
func parseReply(v []int64) (rp.Reservation, error) {
	if len(v) != 5 {
		return rp.Reservation{}, fmt.Errorf("redisbudget: the script returned %d values, want 5", len(v))
	}
	for _, n := range v {
		if n < 0 {
			return rp.Reservation{}, errors.New("redisbudget: the script returned a negative count")
		}
	}
	if v[0] > 1 {
		return rp.Reservation{}, fmt.Errorf("redisbudget: reserved flag %d", v[0])
	}
	return rp.Reservation{
		Reserved: v[0] == 1,
		Counts: rp.BudgetCounts{
			Current:  rp.BucketCounts{Total: uint64(v[1]), Retries: uint64(v[2])},
			Previous: rp.BucketCounts{Total: uint64(v[3]), Retries: uint64(v[4])},
		},
	}, nil
}

// CheckEviction warns when budget keys can be evicted: a volatile-* or
// allkeys-* maxmemory-policy silently resets counts (retries then allowed).
// It returns the policy and, if it is not noeviction, an error to log.
func CheckEviction(ctx context.Context, rdb redis.UniversalClient) (string, error) {
	m, err := rdb.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		return "", fmt.Errorf("redisbudget: CONFIG GET maxmemory-policy: %w", err)
	}
	p := m["maxmemory-policy"]
	if p != "noeviction" {
		return p, fmt.Errorf("redisbudget: maxmemory-policy is %q: budget keys can be evicted (use noeviction for the budget database)", p)
	}
	return p, nil
}
