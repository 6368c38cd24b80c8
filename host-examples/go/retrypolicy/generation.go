package retrypolicy

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
)

// generation is one loaded artifact: its compiled main module and the
// pools of its instances. An Engine runs the current generation; a swap
// makes a new one current and retires the old one, whose calls in flight
// finish on the instances they began on. The last of them closes it.
type generation struct {
	compiled wazero.CompiledModule
	info     ArtifactInfo
	// document is the embedded document (nil when none), loaded by the
	// artifact's own load-health-document, without its health sections
	// (format 2); healthDocument the same with them; documentText its
	// JSON text.
	document       *PolicyDocument
	healthDocument *HealthDocument
	documentText   []byte

	pool pool
	// applyPool serves store-apply: the MemoryStore calls it while the
	// Decide that reached it through the import still holds an instance,
	// so a pool of its own keeps both warm instead of churning one.
	applyPool pool

	inFlight  atomic.Int64
	retired   atomic.Bool
	closeOnce sync.Once
}

func newGeneration(compiled wazero.CompiledModule, maxIdle int) *generation {
	return &generation{compiled: compiled, pool: pool{max: maxIdle}, applyPool: pool{max: maxIdle}}
}

// enter counts a call on g; false when g was retired meanwhile (the
// caller then leaves and takes the new current generation).
func (g *generation) enter() bool {
	g.inFlight.Add(1)
	if g.retired.Load() {
		g.leave()
		return false
	}
	return true
}

// leave ends a call on g; the last call on a retired generation closes it.
func (g *generation) leave() {
	if g.inFlight.Add(-1) == 0 && g.retired.Load() {
		g.close()
	}
}

// retire stops g taking calls: its idle instances close now, busy ones
// when their call ends (their pool refuses them), and the compiled module
// with the last call.
func (g *generation) retire() {
	g.retired.Store(true)
	g.pool.retire()
	g.applyPool.retire()
	if g.inFlight.Load() == 0 {
		g.close()
	}
}

func (g *generation) close() {
	g.closeOnce.Do(func() {
		ctx := context.Background()
		g.pool.retire()
		g.applyPool.retire()
		_ = g.compiled.Close(ctx)
	})
}

// pool holds at most max idle instances, last in first out (the instance
// used last has the warmest memory). A retired pool keeps none.
type pool struct {
	mu      sync.Mutex
	idle    []*instance
	max     int
	retired bool
}

// get takes an idle instance, or returns nil.
func (p *pool) get() *instance {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	in := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	return in
}

// put keeps in for reuse; false when the pool is full or retired.
func (p *pool) put(in *instance) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.retired || len(p.idle) >= p.max {
		return false
	}
	p.idle = append(p.idle, in)
	return true
}

// retire closes the idle instances and refuses any later put.
func (p *pool) retire() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.retired = nil, true
	p.mu.Unlock()
	for _, in := range idle {
		in.close(context.Background())
	}
}

func (p *pool) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}
