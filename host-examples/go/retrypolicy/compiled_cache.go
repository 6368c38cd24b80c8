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

// AdmitClass is Admit on a document this host already validated
// (LoadDocument, Documents.Current, ArtifactDocument) through the class's
// compiled policy (admit-compiled, the same admission: schedule, version,
// hash): the class's policy is lowered once per policy value instead of
// the whole document per event. Unlike Admit it does not re-validate the
// document's other classes; a class the document lacks is Admit's error.
func (e *Engine) AdmitClass(ctx context.Context, d PolicyDocument, class string, nowMs uint64) (Admission, error) {
	for i := range d.Classes {
		if d.Classes[i].Name == class {
			c, err := e.compiledFor(ctx, d.Classes[i].Policy)
			if err != nil {
				return Admission{}, err
			}
			return c.Admit(ctx, class, d.Version, nowMs)
		}
	}
	return e.Admit(ctx, d, class, nowMs)
}
