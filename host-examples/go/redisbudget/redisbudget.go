// Package redisbudget is the fleet's budget store in Redis for the Go
// host: it answers each store call of the delivery engine (docs/engine.md
// section 6: a key and the script's arguments, exactly as the engine
// wrote them) with ONE EVALSHA of fleet/budget.lua, the script every host
// in every language loads (fleet/README.md), and hands back the script's
// integers. On NOSCRIPT nothing ran, so the same command is sent once
// more as EVAL. It never builds arguments nor judges a reply: the engine
// does both.
//
//	store := redisbudget.New(rdb, redisbudget.WithTimeout(250*time.Millisecond))
//	reply, err := store.Call(ctx, key, argv) // then feed {store, call_id, reply} or {failed: true}
package redisbudget

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

//go:generate go run ../internal/cmd/embedlua -script ../../../fleet/budget.lua -out budget_lua.go

// DefaultTimeout bounds every store call.
const DefaultTimeout = 250 * time.Millisecond

var script = redis.NewScript(budgetLua)

// Store is the budget script in one Redis (or one Redis Cluster).
type Store struct {
	rdb     redis.Scripter
	timeout time.Duration
	trips   atomic.Uint64
}

// Option configures New.
type Option func(*Store)

// WithTimeout bounds every store call (default DefaultTimeout). The
// go-redis client must honour context deadlines: build it with
// ClientOptions, or set ContextTimeoutEnabled yourself.
func WithTimeout(d time.Duration) Option { return func(s *Store) { s.timeout = d } }

// New returns a Store over rdb (a *redis.Client, *redis.ClusterClient or
// *redis.Ring).
func New(rdb redis.Scripter, opts ...Option) *Store {
	s := &Store{rdb: rdb, timeout: DefaultTimeout}
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

// Call runs the script on key with argv (one EVALSHA; one EVAL after a
// NOSCRIPT) within the timeout and returns its integers. Any error (Redis
// down, hung past the timeout, an error reply such as the script's clock
// skew check, a reply that is not integers) is returned as is: the caller
// answers the engine that the call failed.
func (s *Store) Call(ctx context.Context, key string, argv []string) ([]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	keys := []string{key}
	args := make([]any, len(argv))
	for i, a := range argv {
		args[i] = a
	}
	v, err := s.count(s.rdb.EvalSha(ctx, script.Hash(), keys, args...)).Int64Slice()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		v, err = s.count(s.rdb.Eval(ctx, budgetLua, keys, args...)).Int64Slice()
	}
	if err != nil {
		return nil, fmt.Errorf("redisbudget: %w", err)
	}
	return v, nil
}

// RoundTrips is how many of Call's commands (EVALSHA, EVAL) Redis answered
// (a reply or an error reply); one that never reached it (refused, timed
// out) is not a round trip.
func (s *Store) RoundTrips() uint64 { return s.trips.Load() }

func (s *Store) count(cmd *redis.Cmd) *redis.Cmd {
	var re redis.Error
	var ne net.Error
	if err := cmd.Err(); err == nil || errors.Is(err, redis.Nil) || (errors.As(err, &re) && !errors.As(err, &ne)) {
		s.trips.Add(1)
	}
	return cmd
}

// ClientOptions are go-redis options for a budget store at addr: every
// dial, read and write bounded by timeout, and context deadlines honoured.
func ClientOptions(addr string, timeout time.Duration) *redis.Options {
	return &redis.Options{
		Addr: addr, DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout, PoolTimeout: timeout,
		ContextTimeoutEnabled: true, MaxRetries: -1, DisableIdentity: true, Protocol: 2,
	}
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
