// Package endpointhealth is a replica's per-endpoint memory for format 3
// (docs/health-dispatch.md section 1): the newest health view a store
// reply showed, the release pacer, and the new events admitted in the
// class budget's two newest buckets. In memory only (never journaled: a
// missing view reads as stale), bounded to Max endpoints, least recently
// used dropped first (a dropped view is a missing view, a dropped pacer a
// new one). It decides nothing: the component's gate, after-probe and
// normal-per-s read and return these values.
package endpointhealth

import (
	"container/list"
	"sync"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Max is the bound of docs/health-dispatch.md section 1.
const Max = 10_000

// Entry is one endpoint's values. Lock it around a gate (gate, the probe
// call, after-probe) so two events never spend one pacer token; every
// field is read and written under its lock.
type Entry struct {
	sync.Mutex
	View  *rp.HealthView // newest store reply's view (nil: none yet)
	Pacer rp.Pacer       // the release token bucket
	// ProbeBusyUntilMs: no probe call for this endpoint before it (one
	// probe call per replica, endpoint and probe window).
	ProbeBusyUntilMs uint64
	admBucket        uint64 // the admissions' newest bucket
	admCurrent       uint64
	admPrev          uint64
}

// KeepView keeps v when it is not older than the kept view (the caller
// holds e's lock). A nil v (a failed call, a format-2 reply) changes nothing.
func (e *Entry) KeepView(v *rp.HealthView) {
	if v == nil || (e.View != nil && v.AsOfMs < e.View.AsOfMs) {
		return
	}
	c := *v
	e.View = &c
}

// roll moves the admissions to bucket (the caller holds e's lock).
func (e *Entry) roll(bucket uint64) {
	switch {
	case bucket <= e.admBucket:
	case bucket == e.admBucket+1:
		e.admBucket, e.admPrev, e.admCurrent = bucket, e.admCurrent, 0
	default:
		e.admBucket, e.admPrev, e.admCurrent = bucket, 0, 0
	}
}

// Admit counts one new event admitted at nowMs in buckets of windowMs
// (the class budget's window; the caller holds e's lock).
func (e *Entry) Admit(nowMs, windowMs uint64) {
	if windowMs == 0 {
		return
	}
	e.roll(nowMs / windowMs)
	e.admCurrent++
}

// Admissions are the counts rolled to nowMs: the current bucket's and the
// one before it (normal-per-s's inputs; the caller holds e's lock).
func (e *Entry) Admissions(nowMs, windowMs uint64) (current, previous uint64) {
	if windowMs == 0 {
		return 0, 0
	}
	e.roll(nowMs / windowMs)
	return e.admCurrent, e.admPrev
}

// Table maps endpoint ids to entries, at most max of them.
type Table struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used; values are *item
	items map[string]*list.Element
}

type item struct {
	endpoint string
	entry    *Entry
}

// New is an empty table of at most max endpoints (max < 1: Max).
func New(max int) *Table {
	if max < 1 {
		max = Max
	}
	return &Table{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

// Entry is endpoint's entry, created when missing, now the most recently
// used; past max the least recently used one is dropped.
func (t *Table) Entry(endpoint string) *Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.items[endpoint]; ok {
		t.order.MoveToFront(el)
		return el.Value.(*item).entry
	}
	e := &Entry{}
	t.items[endpoint] = t.order.PushFront(&item{endpoint, e})
	for t.order.Len() > t.max {
		last := t.order.Back()
		t.order.Remove(last)
		delete(t.items, last.Value.(*item).endpoint)
	}
	return e
}

// Len is how many endpoints the table holds.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.order.Len()
}
