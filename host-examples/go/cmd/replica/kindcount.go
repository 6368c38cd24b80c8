package main

import (
	"sync/atomic"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
)

// kindCounts counts attempts by transport kind, every kind of the closed
// list present (zeros included) for the summary.
type kindCounts struct {
	index map[httpoutcome.TransportKind]int
	n     []atomic.Uint64
}

func newKindCounts() *kindCounts {
	kinds := httpoutcome.TransportKinds()
	c := &kindCounts{index: make(map[httpoutcome.TransportKind]int, len(kinds)), n: make([]atomic.Uint64, len(kinds))}
	for i, k := range kinds {
		c.index[k] = i
	}
	return c
}

// add counts one attempt that ended as k (a kind outside the list cannot
// be produced: every producer uses the constants).
func (c *kindCounts) add(k httpoutcome.TransportKind) {
	if i, ok := c.index[k]; ok {
		c.n[i].Add(1)
	}
}

// summary is every kind with its count.
func (c *kindCounts) summary() map[string]uint64 {
	out := make(map[string]uint64, len(c.n))
	for k, i := range c.index {
		out[string(k)] = c.n[i].Load()
	}
	return out
}
