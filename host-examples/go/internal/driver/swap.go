package driver

import (
	"context"
	"fmt"
)

// An artifact swap (--watch-artifact-ms, --artifact-from-redis;
// docs/engine.md section 11): a new artifact is new code, so a new engine:
// the old one is drained and snapshot, the snapshot resumed on the new one
// (open events keep the policy they were admitted under).

// swapped is the watcher's call after an applied swap: the loop starts
// the engine's swap at its next turn.
func (d *driver) swapped() {
	select {
	case d.swaps <- struct{}{}:
	default: // one is already waiting: it opens on the newest artifact
	}
}

// beginSwap pauses the run for a swap: the old engine is fed drain.
func (d *driver) beginSwap(batch []input) []input {
	d.swapping, d.drained = true, false
	return append(batch, input{Op: "drain"})
}

// finishSwap moves the engine's events to an engine on the current
// artifact once the old one drained. A failure ends the run (its events
// stay in the journal, pending).
func (d *driver) finishSwap(ctx context.Context) {
	d.swapping, d.drained = false, false
	var a answer
	d.crossings++
	err := d.de.Feed(ctx, []any{&input{Op: "snapshot", NowMs: d.now()}}, &a)
	if err == nil {
		d.act(a.Outputs)
	}
	if err != nil || len(a.Errors) > 0 || d.snapshot == "" {
		d.broken = fmt.Errorf("artifact swap: the old engine gave no snapshot: %v %+v", err, a.Errors)
		return
	}
	text := d.document
	if d.cfg.PolicyPath == "" { // following the artifact: its document is current for new events
		if _, doc, ok := d.engine.ArtifactHealthDocument(); ok {
			text = string(doc)
		}
	}
	next, err := d.engine.OpenDeliveryEngine(ctx, d.engineConfig(text))
	if err != nil {
		d.broken = fmt.Errorf("artifact swap: the new artifact's engine: %w", err)
		return
	}
	a = answer{}
	d.crossings++
	if err := next.Resume(ctx, d.now(), []byte(d.snapshot), &a); err != nil || len(a.Errors) > 0 {
		_ = next.Close(ctx)
		d.broken = fmt.Errorf("artifact swap: the new engine refused the snapshot: %v %+v", err, a.Errors)
		return
	}
	_ = d.de.Close(ctx)
	d.de, d.document, d.snapshot = next, text, ""
	d.logf("the delivery engine moved to the swapped-in artifact (%d open events)", len(d.open))
	d.act(a.Outputs)
	d.timeout = a.TimeoutMs
}
