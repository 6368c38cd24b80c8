package retrypolicy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Documents holds the policy document a dispatcher admits new events
// under, and swaps it without a restart. A new document is validated by
// the component (LoadDocument) and, class by class, admitted once
// (Admit) before the swap; a bad one keeps the old document and the error
// says why. Events already admitted keep the schedule and policy hash in
// their Admission (persist it): a reload changes only what is admitted
// after it.
//
// Created without a text, Documents follows the engine's artifact: the
// document the artifact embeds (custom section
// webhook-retry-policy:document) is current, and a swapped-in artifact
// that embeds another makes that one current. A Reload pins the reloaded
// document instead (the caller's document wins over the artifact's).
type Documents struct {
	engine *Engine
	cur    atomic.Pointer[PolicyDocument]
	follow atomic.Bool // the artifact's document is current
	mu     sync.Mutex  // one reload at a time
	text   []byte      // the current document's text (the watcher skips unchanged files)
	bad    []byte      // the last rejected text (reported once, not at every poll)
}

// NewDocuments loads the first document; an invalid one is an error. A
// nil text follows the artifact's embedded document (an error when the
// artifact embeds none).
func NewDocuments(ctx context.Context, e *Engine, text []byte) (*Documents, error) {
	d := &Documents{engine: e}
	if text == nil {
		doc, _, ok := e.ArtifactDocument()
		if !ok {
			return nil, fmt.Errorf("policy document: none given, and the artifact %s embeds none", e.Info().SHA256)
		}
		d.cur.Store(&doc)
		d.follow.Store(true)
		return d, nil
	}
	if err := d.Reload(ctx, text); err != nil {
		return nil, err
	}
	return d, nil
}

// Current is the document new events are admitted under.
func (d *Documents) Current() PolicyDocument {
	if d.follow.Load() {
		if doc := d.engine.cur.Load().document; doc != nil {
			return *doc
		}
	}
	return *d.cur.Load()
}

// CurrentHealth is Current with each class's health section: while
// Documents follows the artifact, the embedded document as format 3
// (Engine.ArtifactHealthDocument: a class with a section runs the
// format-3 send loop, as if the same JSON were the caller's); a reloaded
// document is format 2 (Reload takes format 2 only: a health section is
// refused by load-document), so its classes carry none.
func (d *Documents) CurrentHealth() HealthDocument {
	if d.follow.Load() {
		if doc := d.engine.cur.Load().healthDocument; doc != nil {
			return cloneHealthDocument(*doc)
		}
	}
	doc := *d.cur.Load()
	out := HealthDocument{Version: doc.Version, Classes: make([]HealthClass, 0, len(doc.Classes))}
	for _, c := range doc.Classes {
		out.Classes = append(out.Classes, HealthClass{Name: c.Name, Policy: c.Policy})
	}
	return out
}

// Reload validates text and swaps it in; on any error the current document
// stays and the error names what is wrong.
func (d *Documents) Reload(ctx context.Context, text []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, err := d.engine.LoadDocument(ctx, text)
	if err != nil {
		return fmt.Errorf("policy document rejected, the current one stays: %w", err)
	}
	if len(doc.Classes) == 0 {
		return fmt.Errorf("policy document rejected, the current one stays: it has no class")
	}
	now := uint64(time.Now().UnixMilli())
	for _, c := range doc.Classes {
		if _, err := d.engine.Admit(ctx, doc, c.Name, now); err != nil {
			return fmt.Errorf("policy document rejected, the current one stays: class %q: %w", c.Name, err)
		}
	}
	d.cur.Store(&doc)
	d.follow.Store(false)
	d.text = append([]byte(nil), text...)
	return nil
}

// ReloadFile reads path and reloads it; unchanged text is not reloaded
// (changed reports whether a new document is now current).
func (d *Documents) ReloadFile(ctx context.Context, path string) (changed bool, err error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("policy document %s: %w (the current one stays)", path, err)
	}
	d.mu.Lock()
	same := bytes.Equal(text, d.text) || bytes.Equal(text, d.bad)
	d.mu.Unlock()
	if same {
		return false, nil
	}
	if err := d.Reload(ctx, text); err != nil {
		d.mu.Lock()
		d.bad = text
		d.mu.Unlock()
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// WatchFile polls path every interval until ctx ends, reloading it when
// its text changes; report (if not nil) is called after every attempted
// reload with nil (swapped) or why the old document stays. Polling, not
// inotify: it works on every file system and across editors' rename-saves.
func (d *Documents) WatchFile(ctx context.Context, path string, interval time.Duration, report func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		changed, err := d.ReloadFile(ctx, path)
		if report != nil && (changed || err != nil) {
			report(err)
		}
	}
}
