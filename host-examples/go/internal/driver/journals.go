package driver

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
)

// The replica's --store FILE and --resume FILE (docs/journal.md; what the
// lines say is the engine's, docs/engine.md sections 7 and 10):
//
//   - --store FILE is locked (one writer; a stale lock of a killed writer
//     removed) and its bytes are resumed first: its pending and held
//     events go on, a torn tail is cut when the engine says so. Every
//     journal action of the run is appended to it, durable before any
//     later attempt starts.
//   - --resume FILE (another run's journal, any language, read only): its
//     events go on under the policy each was admitted with.
//
// Until the engine takes several resume inputs (and copies the resumed
// events into the journal), both files go in ONE resume: a fresh --store
// first gets --resume's header line (a byte copy), and a resumed event's
// record reaches --store at its next transition.

// openJournals opens --store and resumes the journals' bytes. A journal
// the engine refuses (corrupt, unsupported) or the file system refuses
// is a setup error.
func (d *driver) openJournals(ctx context.Context) error {
	var text []byte
	if d.cfg.StorePath != "" {
		j, err := journal.Open(d.cfg.StorePath)
		if err != nil {
			return usageErrorf("--store %s: %v", d.cfg.StorePath, err)
		}
		d.journal = j
		if text, err = j.Bytes(); err != nil {
			return usageErrorf("--store %s: %v", d.cfg.StorePath, err)
		}
	}
	where := "--store " + d.cfg.StorePath
	if d.cfg.ResumePath != "" && d.cfg.ResumePath != d.cfg.StorePath {
		other, err := os.ReadFile(d.cfg.ResumePath)
		if err != nil {
			return usageErrorf("--resume %s: %v", d.cfg.ResumePath, err)
		}
		if text, err = d.withResumed(text, other); err != nil {
			return err
		}
		where = "--resume " + d.cfg.ResumePath
	}
	if len(text) == 0 {
		return nil
	}
	var a answer
	d.crossings++
	if err := d.de.ResumeInto(ctx, d.now(), text, &a); err != nil {
		return usageErrorf("%s: %v", where, err)
	}
	if len(a.Errors) > 0 {
		return usageErrorf("%s: %s: %s", where, a.Errors[0].Error, a.Errors[0].Message)
	}
	d.act(a.Outputs)
	d.timeout = a.TimeoutMs
	return nil
}

// withResumed is the one journal text of --store's bytes and --resume's:
// --resume's alone for a fresh --store (which gets its header line),
// else --store's complete lines and --resume's records after them (the
// newer record of an event wins).
func (d *driver) withResumed(store, other []byte) ([]byte, error) {
	nl := bytes.IndexByte(other, '\n')
	if nl < 0 {
		return store, nil // no complete line: nothing to resume
	}
	if len(store) == 0 {
		if d.journal != nil {
			if err := d.journal.Append(string(other[:nl+1])); err != nil {
				return nil, usageErrorf("--store %s: %v", d.cfg.StorePath, err)
			}
		}
		return other, nil
	}
	end := bytes.LastIndexByte(store, '\n') + 1
	return append(append([]byte(nil), store[:end]...), other[nl+1:]...), nil
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
