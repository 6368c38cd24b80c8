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
