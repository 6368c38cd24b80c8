package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// compiledCache holds one rp.Compiled per (policy, health) the dispatcher
// steps records of (admitted under the current document, an older one,
// or resumed from the journal), at most maxCompiled (then the oldest is
// closed: a later step compiles it again).
type compiledCache struct {
	engine *rp.Engine
	mu     sync.Mutex
	byKey  map[string]*rp.Compiled
	order  []string
}

const maxCompiled = 256

func newCompiledCache(e *rp.Engine) *compiledCache {
	return &compiledCache{engine: e, byKey: map[string]*rp.Compiled{}}
}

func (c *compiledCache) get(ctx context.Context, p rp.Policy, h *rp.Health) (*rp.Compiled, error) {
	k, err := json.Marshal(struct {
		P rp.Policy
		H *rp.Health
	}{p, h})
	if err != nil {
		return nil, fmt.Errorf("dispatcher: policy key: %w", err)
	}
	key := string(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if comp, ok := c.byKey[key]; ok {
		return comp, nil
	}
	comp, err := c.engine.Compile(ctx, p, h)
	if err != nil {
		return nil, err
	}
	if len(c.order) >= maxCompiled { // closed handles are never used again: a later get compiles anew
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
	c.byKey[key] = comp
	c.order = append(c.order, key)
	return comp, nil
}

// compiled is the Compiled of a record's policy and health section.
func (d *Dispatcher) compiled(ctx context.Context, p rp.Policy, h *rp.Health) (*rp.Compiled, error) {
	return d.cache.get(ctx, p, h)
}

// healthClass is class name of doc.
func healthClass(doc *rp.HealthDocument, name string) (rp.HealthClass, bool) {
	for _, c := range doc.Classes {
		if c.Name == name {
			return c, true
		}
	}
	return rp.HealthClass{}, false
}

// formatTwo is doc's classes as a format-2 document (for the component's
// own refusal of a class the document lacks).
func formatTwo(doc *rp.HealthDocument) rp.PolicyDocument {
	out := rp.PolicyDocument{Version: doc.Version}
	for _, c := range doc.Classes {
		out.Classes = append(out.Classes, rp.EventClass{Name: c.Name, Policy: c.Policy})
	}
	return out
}

// hasSection reports whether class name of doc has a health section.
func hasSection(doc *rp.HealthDocument, name string) bool {
	c, ok := healthClass(doc, name)
	return ok && c.Health != nil
}

// enqueueHealth admits ev under the health document doc (admit-compiled
// with the class's section: its hash covers it) and persists it.
func (d *Dispatcher) enqueueHealth(ctx context.Context, ev Event, doc *rp.HealthDocument, now uint64) (*Record, error) {
	cl, ok := healthClass(doc, ev.Class)
	if !ok {
		_, err := d.cfg.Engine.Admit(ctx, formatTwo(doc), ev.Class, now) // unknown_event_class, the component's words
		if err == nil {
			err = fmt.Errorf("dispatcher: no class %q", ev.Class)
		}
		return nil, err
	}
	comp, err := d.compiled(ctx, cl.Policy, cl.Health)
	if err != nil {
		return nil, err
	}
	adm, err := comp.Admit(ctx, ev.Class, doc.Version, now)
	if err != nil {
		return nil, err
	}
	r := &Record{Event: ev, Admission: adm, Policy: cl.Policy, Health: cl.Health, NextAttemptAtMs: now, State: StatePending}
	if err := d.cfg.Store.Save(r); err != nil {
		return nil, err
	}
	d.admitted(r)
	return r, nil
}
