package retrypolicy

import "sync"

// pool holds at most max idle instances, last in first out (the instance
// used last has the warmest memory).
type pool struct {
	mu   sync.Mutex
	idle []*instance
	max  int
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

// put keeps in for reuse; false when the pool is full.
func (p *pool) put(in *instance) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= p.max {
		return false
	}
	p.idle = append(p.idle, in)
	return true
}

func (p *pool) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}
