package retrypolicy

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
)

// ABIVersion is the abi-version() of the WIT `policy` interface this host
// was generated against; New refuses an artifact reporting another one.
const ABIVersion = 5

// memoryLimitPages bounds each instance's linear memory (64 KiB pages):
// 64 MiB, far above what a policy call needs (a 1 MiB document included).
const memoryLimitPages = 1024

// Engine runs a policy artifact (docs/artifact.md): the component given
// to New (WithArtifact, WithArtifactPath), else the file named by
// RETRY_POLICY_ARTIFACT, else the copy embedded in this package. New
// checks it (pin, container, ABI, self-test, embedded document), compiles
// its main core module once and keeps a pool of instances (each with its
// own linear memory): a call takes an idle instance, or instantiates one
// when none is idle, and returns it afterwards; at most MaxIdle are kept.
// SwapArtifact and WatchArtifact replace the artifact without a restart.
// An Engine is safe for any number of goroutines; create one per process
// and share it.
//
// Every call takes a context.Context: a call on a done context returns its
// error at once, and the context reaches the BudgetStore (the only part of
// a call that can wait, e.g. on Redis).
type Engine struct {
	rt      wazero.Runtime
	clock   Clock
	store   BudgetStore
	maxIdle int
	cur     atomic.Pointer[generation]
	swapMu  sync.Mutex // one load or swap at a time

	inFlight atomic.Int64
	closed   atomic.Bool
}

type config struct {
	clock    Clock
	store    BudgetStore
	storeFor func(*Engine) BudgetStore
	maxIdle  int
	rtCfg    wazero.RuntimeConfig
	cache    wazero.CompilationCache
	noCache  bool // WithCompilationCache(nil): compile in memory only
	artifact artifactChoice
}

// Option configures New.
type Option func(*config)

// WithClock sets the clock Decide reads through the `clock` import
// (default SystemClock).
func WithClock(c Clock) Option { return func(cfg *config) { cfg.clock = c } }

// WithBudgetStore sets the store Decide calls through the `budget-store`
// import (default a MemoryStore on this engine).
func WithBudgetStore(s BudgetStore) Option { return func(cfg *config) { cfg.store = s } }

// WithBudgetStoreFor sets the store Decide calls to the one newStore
// builds from the engine, for stores that use the engine themselves (a
// shared store computing its keys with StoreKey; MemoryStore applies
// requests with it):
//
//	rp.New(ctx, rp.WithBudgetStoreFor(func(e *rp.Engine) rp.BudgetStore { return rp.NewMemoryStore(e) }))
func WithBudgetStoreFor(newStore func(*Engine) BudgetStore) Option {
	return func(cfg *config) { cfg.storeFor = newStore }
}

// WithMaxIdle sets how many idle instances the pool keeps (default
// GOMAXPROCS, at least 1).
func WithMaxIdle(n int) Option { return func(cfg *config) { cfg.maxIdle = n } }

// WithInterpreter runs the module in wazero's interpreter instead of its
// compiler (the default where wazero has one: amd64 and arm64).
func WithInterpreter() Option {
	return func(cfg *config) { cfg.rtCfg = wazero.NewRuntimeConfigInterpreter() }
}

// WithCompilationCache reuses compiled code across engines and processes
// (wazero.NewCompilationCacheWithDir): a fresh process then skips most of
// the compile. Without this option New uses DefaultCompilationCache.
func WithCompilationCache(c wazero.CompilationCache) Option {
	return func(cfg *config) { cfg.cache, cfg.noCache = c, c == nil }
}

// New finds the artifact (the options, else RETRY_POLICY_ARTIFACT, else
// the embedded copy), wires the imports (`clock`, `budget-store`) to the
// configured Clock and BudgetStore, and loads the artifact with every
// check of docs/artifact.md; a refused artifact is an *ArtifactError.
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	cfg := config{clock: SystemClock{}, maxIdle: runtime.GOMAXPROCS(0), rtCfg: wazero.NewRuntimeConfig()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		return nil, errors.New("retrypolicy: WithClock(nil)")
	}
	if cfg.maxIdle < 1 {
		cfg.maxIdle = 1
	}
	raw, source, pin, err := cfg.artifact.read()
	if err != nil {
		return nil, err
	}
	rtCfg := cfg.rtCfg.WithMemoryLimitPages(memoryLimitPages)
	if cfg.cache == nil && !cfg.noCache {
		cfg.cache = DefaultCompilationCache()
	}
	if cfg.cache != nil {
		rtCfg = rtCfg.WithCompilationCache(cfg.cache)
	}
	// No WithCloseOnContextDone: it costs a goroutine per call, and every
	// policy call is short and bounded (contract 0.2's work bounds). The
	// context is checked before each call and reaches the store.
	e := &Engine{rt: wazero.NewRuntimeWithConfig(ctx, rtCfg), clock: cfg.clock, store: cfg.store, maxIdle: cfg.maxIdle}
	if cfg.storeFor != nil {
		e.store = cfg.storeFor(e)
	}
	if e.store == nil {
		e.store = NewMemoryStore(e)
	}
	if err := instantiateImports(ctx, e.rt, hostImports{e}); err != nil {
		_ = e.rt.Close(ctx)
		return nil, fmt.Errorf("retrypolicy: %w", err)
	}
	g, err := e.load(ctx, raw, source, pin)
	if err != nil {
		_ = e.rt.Close(ctx)
		return nil, err
	}
	e.cur.Store(g)
	return e, nil
}

// Close waits for the calls in flight, then closes every instance and the
// runtime. Calls after Close return ErrClosed.
func (e *Engine) Close(ctx context.Context) error {
	if e.closed.Swap(true) {
		return nil
	}
	for e.inFlight.Load() > 0 { // a call that starts now sees closed and backs off
		time.Sleep(time.Millisecond)
	}
	e.swapMu.Lock()
	defer e.swapMu.Unlock()
	e.cur.Load().retire()
	return e.rt.Close(ctx)
}

// acquireOn takes an idle instance of g (nil: the current generation), or
// instantiates one, from its main pool or, when apply is set, its
// store-apply pool, for one call; the caller defers e.done(ctx, op, in,
// &err). Calls may nest (the budget-store import of Decide calls the
// MemoryStore, which calls StoreApply on an instance of the apply pool).
func (e *Engine) acquireOn(ctx context.Context, g *generation, apply bool) (*instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.inFlight.Add(1)
	if e.closed.Load() {
		e.leave()
		return nil, ErrClosed
	}
	if g == nil {
		for g = e.cur.Load(); !g.enter(); g = e.cur.Load() {
		}
	} else if !g.enter() {
		e.leave()
		return nil, ErrClosed
	}
	p := &g.pool
	if apply {
		p = &g.applyPool
	}
	if in := p.get(); in != nil {
		in.allocs = 0
		return in, nil
	}
	in, err := newInstance(ctx, e.rt, g.compiled)
	if err != nil {
		g.leave()
		e.leave()
		return nil, err
	}
	in.home, in.gen = p, g
	return in, nil
}

// done ends a call on in: a *PolicyError is the guest's answer; a value
// the WIT cannot carry becomes a *PolicyError; anything else (a trap, an
// ABI error, a panic) discards the instance and comes back as a
// *TrapError, or as ctx's error when ctx ended the call. It must be the
// deferred function itself (it recovers panics).
func (e *Engine) done(ctx context.Context, op string, in *instance, errp *error) {
	if r := recover(); r != nil {
		*errp = fmt.Errorf("panic in the host glue: %v", r)
	}
	*errp = in.judge(ctx, op, *errp)
	g := in.gen
	e.release(ctx, in)
	g.leave()
	e.leave()
}

// onInstance runs fn on an instance of g (nil: the current artifact) as one
// call (acquireOn, fn, done).
func onInstance[T any](ctx context.Context, e *Engine, g *generation, op string, fn func(*instance) (T, error)) (v T, err error) {
	in, err := e.acquireOn(ctx, g, false)
	if err != nil {
		return v, err
	}
	defer e.done(ctx, op, in, &err)
	return fn(in)
}

// with is onInstance for a call that returns only an error.
func (e *Engine) with(ctx context.Context, op string, fn func(*instance) error) error {
	_, err := onInstance(ctx, e, nil, op, func(in *instance) (struct{}, error) { return struct{}{}, fn(in) })
	return err
}

// judge classifies the error of a call on in (see done).
func (in *instance) judge(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil // the common case, before the variables errors.As needs
	}
	var pe *PolicyError
	var le *lowerError
	switch {
	case errors.As(err, &pe):
		return err
	case errors.As(err, &le):
		// refused before the guest ran; what it allocated so far is leaked, so start afresh
		in.broken = in.allocs > 0
		return le.policyError()
	}
	in.broken = true
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("retrypolicy: %s: %w", op, ctxErr)
	}
	return &TrapError{Op: op, Err: err}
}

func (e *Engine) leave() { e.inFlight.Add(-1) }

func (e *Engine) release(ctx context.Context, in *instance) {
	if in.broken {
		in.close(context.WithoutCancel(ctx))
		return
	}
	if !in.home.put(in) {
		in.close(ctx)
	}
}
