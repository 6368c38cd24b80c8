package retrypolicy

import (
	"context"
	"sync"
	"sync/atomic"
)

// compiledCacheMax bounds the policies Engine.Step keeps compiled. A
// dispatcher has a few (one per class); a caller passing ever new policy
// values evicts the older ones.
const compiledCacheMax = 256

// compiledCache is Engine.Step's Compiled per policy value. An evicted
// entry is dropped, not closed: a step running on it keeps working, and
// the cleanup of Compile closes it once no step holds it.
type compiledCache struct {
	last atomic.Pointer[cachedPolicy] // the last policy stepped: most steps hit it without hashing
	mu   sync.RWMutex
	m    map[Policy]*Compiled
}

type cachedPolicy struct {
	p Policy
	c *Compiled
}

// compiledFor is p compiled, from the cache or compiled now (a refused
// policy is not cached: it is refused again at its next step).
func (e *Engine) compiledFor(ctx context.Context, p Policy) (*Compiled, error) {
	cc := &e.compiled
	if last := cc.last.Load(); last != nil && last.p == p {
		return last.c, nil
	}
	cc.mu.RLock()
	c := cc.m[p]
	cc.mu.RUnlock()
	if c != nil {
		cc.last.Store(&cachedPolicy{p, c})
		return c, nil
	}
	c, err := e.Compile(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if have := cc.m[p]; have != nil { // another step compiled it meanwhile
		_ = c.Close()
		return have, nil
	}
	if cc.m == nil {
		cc.m = make(map[Policy]*Compiled)
	}
	if len(cc.m) >= compiledCacheMax {
		for k := range cc.m {
			delete(cc.m, k)
			break
		}
	}
	cc.m[p] = c
	cc.last.Store(&cachedPolicy{p, c})
	return c, nil
}
