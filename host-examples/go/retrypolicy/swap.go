package retrypolicy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Info says which artifact the Engine runs now.
func (e *Engine) Info() ArtifactInfo { return e.cur.Load().info }

// ArtifactDocument is the policy document the current artifact embeds
// (custom section webhook-retry-policy:document, loaded by the artifact's
// own load-health-document) as format 2 (its classes without their
// health sections: what Admit takes), and its JSON
// text; ok is false when it embeds none. ArtifactHealthDocument is the
// same document with its health sections.
func (e *Engine) ArtifactDocument() (doc PolicyDocument, text []byte, ok bool) {
	g := e.cur.Load()
	if g.document == nil {
		return PolicyDocument{}, nil, false
	}
	return *g.document, append([]byte(nil), g.documentText...), true
}

// ArtifactHealthDocument is the document the current artifact embeds as
// format 3 (docs/artifact.md step 6): each class with its effective
// health section (nil: that class runs format 2), as LoadHealthDocument
// returns it, and its JSON text; ok is false when it embeds none. A
// dispatcher or replica running on the embedded document runs the
// format-3 send loop for every class that has a section, exactly as for
// the same JSON given as its policy.
func (e *Engine) ArtifactHealthDocument() (doc HealthDocument, text []byte, ok bool) {
	g := e.cur.Load()
	if g.healthDocument == nil {
		return HealthDocument{}, nil, false
	}
	doc = *g.healthDocument
	doc.Classes = append([]HealthClass(nil), doc.Classes...) // the sections are read-only values the caller may keep
	return doc, append([]byte(nil), g.documentText...), true
}

// SwapArtifact checks component like New does (the pin: expectedSHA256
// when not "", else RETRY_POLICY_ARTIFACT_SHA256 when set, as every host
// does: docs/artifact.md), then makes it the artifact every later call runs.
// Calls already running finish on the instance they began on. On any
// error (an *ArtifactError) the current artifact stays. It returns the
// new artifact's info.
func (e *Engine) SwapArtifact(ctx context.Context, component []byte, expectedSHA256 string) (ArtifactInfo, error) {
	return e.SwapArtifactFrom(ctx, component, SourceBytes, expectedSHA256)
}

// SwapArtifactFile is SwapArtifact on the file at path.
func (e *Engine) SwapArtifactFile(ctx context.Context, path, expectedSHA256 string) (ArtifactInfo, error) {
	raw, err := readArtifactFile(path)
	if err != nil {
		return e.Info(), err
	}
	return e.SwapArtifactFrom(ctx, raw, path, expectedSHA256)
}

// SwapArtifactFrom is SwapArtifact naming where component came from:
// source becomes ArtifactInfo.Source (the fleet rollout's follower,
// docs/rollout.md, says "redis"; "" is SourceBytes).
func (e *Engine) SwapArtifactFrom(ctx context.Context, component []byte, source, expectedSHA256 string) (ArtifactInfo, error) {
	if source == "" {
		source = SourceBytes
	}
	e.swapMu.Lock()
	defer e.swapMu.Unlock()
	if e.closed.Load() {
		return ArtifactInfo{}, ErrClosed
	}
	pin, err := pinOf(expectedSHA256)
	if err != nil {
		return e.Info(), err
	}
	g, err := e.load(ctx, component, source, pin)
	if err != nil {
		return e.Info(), err
	}
	e.cur.Swap(g).retire()
	return g.info, nil
}

// ArtifactEvent is what WatchArtifact reports: a swap (Err nil: Old was
// replaced by New) or a refused file (Err says why; Old still runs).
type ArtifactEvent struct {
	Path     string
	Old, New ArtifactInfo
	Err      error
}

// DefaultWatchInterval is how often WatchArtifact polls by default.
const DefaultWatchInterval = time.Second

// WatchArtifact polls path every interval (DefaultWatchInterval when <= 0)
// until ctx ends, and swaps the artifact in when the file's sha256 differs
// from the current artifact's. report (if not nil) is called after each
// swap and each refusal; a refused file is reported once per distinct
// sha256 (an unreadable one once per distinct error), not at every poll.
// Polling, not inotify: deploys replace files by rename or symlink swap,
// which a watch on the old inode misses. RETRY_POLICY_ARTIFACT_SHA256, when
// set, pins every swap as it pins the load (docs/artifact.md): a pinned
// engine takes no other bytes.
func (e *Engine) WatchArtifact(ctx context.Context, path string, interval time.Duration, report func(ArtifactEvent)) {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	w := watcher{e: e, path: path, report: report}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.poll(ctx)
	}
}

// watcher is WatchArtifact's state between polls.
type watcher struct {
	e      *Engine
	path   string
	report func(ArtifactEvent)
	bad    string // the sha256 (or read error) last refused
}

func (w *watcher) poll(ctx context.Context) {
	old := w.e.Info()
	raw, err := readArtifactFile(w.path)
	if err != nil {
		if key := "unreadable: " + err.Error(); key != w.bad {
			w.bad = key
			w.emit(ArtifactEvent{Path: w.path, Old: old, New: old, Err: err})
		}
		return
	}
	sum := sha256.Sum256(raw)
	digest := hex.EncodeToString(sum[:])
	if digest == old.SHA256 || digest == w.bad {
		return
	}
	info, err := w.e.SwapArtifactFrom(ctx, raw, w.path, "")
	if err != nil {
		if ctx.Err() != nil {
			return // shutting down: not the file's fault
		}
		w.bad = digest
		w.emit(ArtifactEvent{Path: w.path, Old: old, New: old, Err: err})
		return
	}
	w.bad = ""
	w.emit(ArtifactEvent{Path: w.path, Old: old, New: info})
}

func (w *watcher) emit(ev ArtifactEvent) {
	if w.report != nil {
		w.report(ev)
	}
}
