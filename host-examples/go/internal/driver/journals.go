package driver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"unicode/utf8"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
)

// The replica's --store FILE (locked, resumed first with copy false, every
// journal action appended) and --resume FILE (another run's journal, read
// only, resumed next with copy true: the engine journals the events it
// takes into --store). What the lines say is the engine's (docs/journal.md,
// docs/engine.md sections 7 and 10).

// openStore locks and reads --store (nil bytes without it).
func (d *driver) openStore() ([]byte, error) {
	if d.cfg.StorePath == "" {
		return nil, nil
	}
	j, err := journal.Open(d.cfg.StorePath)
	if err != nil {
		return nil, usageErrorf("--store %s: %v", d.cfg.StorePath, err)
	}
	d.journal = j
	text, err := j.Bytes()
	if err != nil {
		return nil, usageErrorf("--store %s: %v", d.cfg.StorePath, err)
	}
	return text, nil
}

// resumeJournals hands the engine --store's bytes, then --resume's.
func (d *driver) resumeJournals(ctx context.Context, store []byte) error {
	if len(store) > 0 {
		if err := d.resume("--store "+d.cfg.StorePath, func(a *answer) error { return d.de.Resume(ctx, d.now(), store, a) }); err != nil {
			return err
		}
	}
	if d.cfg.ResumePath == "" || d.cfg.ResumePath == d.cfg.StorePath {
		return nil
	}
	other, err := os.ReadFile(d.cfg.ResumePath)
	if err != nil {
		return usageErrorf("--resume %s: %v", d.cfg.ResumePath, err)
	}
	if !utf8.Valid(other) { // a torn tail of a killed writer: never acknowledged
		other = other[:bytes.LastIndexByte(other, '\n')+1]
	}
	if !utf8.Valid(other) {
		return usageErrorf("--resume %s: journal_corrupt: not UTF-8 text", d.cfg.ResumePath)
	}
	in := input{Op: "resume", NowMs: d.now(), Journal: string(other), Copy: true}
	return d.resume("--resume "+d.cfg.ResumePath, func(a *answer) error { return d.de.Feed(ctx, []any{&in}, a) })
}

// resume makes one resume call and acts on its answer. A journal the
// engine refuses (corrupt, unsupported) is a setup error naming where.
func (d *driver) resume(where string, call func(*answer) error) error {
	var a answer
	d.crossings++
	if err := call(&a); err != nil {
		return usageErrorf("%s: %v", where, err)
	}
	if len(a.Errors) > 0 {
		return usageErrorf("%s: %s: %s", where, a.Errors[0].Error, a.Errors[0].Message)
	}
	d.act(a.Outputs)
	d.timeout = a.TimeoutMs
	return nil
}

// closeJournal closes --store and removes its lock (a clean exit, a
// drain included: the pending events stay in it).
func (d *driver) closeJournal() {
	if d.journal != nil {
		if err := d.journal.Close(); err != nil {
			fmt.Fprintf(d.stderr, "replica: --store: %v\n", err)
		}
		d.journal = nil
	}
}
