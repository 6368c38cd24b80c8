package retrypolicy

import (
	"context"
	"sync"
)

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
