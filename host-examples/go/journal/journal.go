// Package journal reads and writes the event journal of
// docs/journal.md (formats 1 and 2; every dispatcher writes 2):
// `<crc> <json>` lines, a header first, the newest event record of each
// event wins, each record carrying the policy it was admitted with
// (checked against its policy_hash through the component).
//
//   - one writer: `<journal>.lock` (lock.go; a stale lock of a killed
//     writer of this host is removed);
//   - a header first: a new (or empty) journal gets its header, fsynced,
//     before any event record;
//   - durable before acknowledged: Append writes one line with one write
//     and returns once it is on disk (fdatasync), with group commit: one
//     fdatasync covers every line written before it (Write + SyncTo);
//   - torn tail: at Open a last line without its LF, with a bad CRC or that
//     is not JSON is cut off (truncate + fsync) before anything is
//     appended; any other bad line refuses the journal (read.go);
//   - compaction: at CompactMinRecords records and more than twice as many
//     as live events (pending plus dead letters) the journal is rewritten
//     into `<journal>.compact`, fsynced, renamed over it, the directory
//     fsynced; a leftover `.compact` is removed at Open.
package journal

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// CompactMinRecords: compaction waits for at least this many records.
const CompactMinRecords = 1024

// Journal is one writer's journal, open for appending. Its methods are
// safe for concurrent use.
type Journal struct {
	path string
	lock string // the lock file, removed by Close

	syncMu sync.Mutex // taken before mu (SyncTo, Compact, Close)
	synced uint64     // lines known to be on disk

	mu          sync.Mutex
	f           *os.File
	written     uint64 // lines written (a sequence number per Write)
	records     int    // records in the file, the header included
	size        int64  // bytes of complete lines: a failed write is cut back to it
	events      map[string]*Record
	order       []string // event ids, first-seen order
	live        int      // pending events plus dead letters
	compactions int
	tornBytes   int64
	recovered   []Record
}

func nowMs() uint64 { return uint64(time.Now().UnixMilli()) }

// isLive: pending and held events and dead letters not replayed are live
// (kept by compaction); delivered events and replayed dead letters are not.
func isLive(r *Record) bool {
	return r.Status != StatusDelivered && !(r.Status == StatusDeadLettered && r.ReplayedAs != nil)
}

func syncDir(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return ioError(filepath.Dir(path), err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return ioError(filepath.Dir(path), err)
	}
	return nil
}

// Open locks the journal at path, reads it (created with mode 0600 when
// missing), cuts a torn tail, and writes the header of a new journal.
// Its records are in Recovered; hash checks their policies.
func Open(path string, hash Hasher) (*Journal, error) {
	lock, err := acquireLock(path, nowMs())
	if err != nil {
		return nil, err
	}
	j, err := open(path, hash)
	if err != nil {
		_ = os.Remove(lock)
		return nil, err
	}
	j.lock = lock
	return j, nil
}

func open(path string, hash Hasher) (*Journal, error) {
	if err := os.Remove(path + ".compact"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, ioError(path+".compact", err)
	}
	// 0600: pending records hold full target URLs, queries included
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, ioError(path, err)
	}
	fail := func(err error) (*Journal, error) {
		f.Close()
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fail(ioError(path, err))
	}
	found, err := Read(data, hash)
	if err != nil {
		if je := (*Error)(nil); errors.As(err, &je) {
			je.Path = path
		}
		return fail(err)
	}
	if found.TornBytes > 0 {
		if err := errors.Join(f.Truncate(found.GoodLen), f.Sync()); err != nil {
			return fail(ioError(path, err))
		}
	}
	j := &Journal{path: path, f: f, records: found.Records, size: found.GoodLen, tornBytes: found.TornBytes,
		events: map[string]*Record{}}
	if j.records == 0 {
		h := HeaderLine(nowMs())
		if _, err := f.Write(h); err != nil {
			return fail(ioError(path, err))
		}
		if err := f.Sync(); err != nil {
			return fail(ioError(path, err))
		}
		j.records, j.size = 1, int64(len(h))
	}
	if err := syncDir(path); err != nil {
		return fail(err)
	}
	for _, e := range found.Events {
		r := e.Record
		j.recovered = append(j.recovered, r.Clone())
		j.remember(&r)
	}
	return j, nil
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.path }

// TornBytes is how many bytes of a torn last line Open cut (0: none).
func (j *Journal) TornBytes() int64 { return j.tornBytes }

// Recovered is the newest record of each event the journal held at Open,
// in first-seen order.
func (j *Journal) Recovered() []Record { return j.recovered }

// Compactions counts the rewrites so far.
func (j *Journal) Compactions() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.compactions
}

// Records is the newest record of each event written or read, first-seen
// order (delivered events dropped by a compaction are gone).
func (j *Journal) Records() []Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Record, 0, len(j.order))
	for _, id := range j.order {
		out = append(out, j.events[id].Clone())
	}
	return out
}

// remember makes r the newest record of its event (under mu).
func (j *Journal) remember(r *Record) {
	old, ok := j.events[r.EventID]
	if !ok {
		j.order = append(j.order, r.EventID)
	} else if isLive(old) {
		j.live--
	}
	if isLive(r) {
		j.live++
	}
	j.events[r.EventID] = r
}

// Append writes r and returns once it is on disk (Write, then SyncTo);
// the journal may then be compacted.
func (j *Journal) Append(r Record) error {
	seq, err := j.Write(r)
	if err != nil {
		return err
	}
	if err := j.SyncTo(seq); err != nil {
		return err
	}
	return j.compactIfDue()
}

// Write appends r's line with one write (not yet on disk: SyncTo(seq)
// before acknowledging it). A failed write is cut back to the last
// complete record, so the next record never joins a partial line.
func (j *Journal) Write(r Record) (seq uint64, err error) {
	line, err := EventLine(&r)
	if err != nil {
		return 0, err
	}
	rec := r.Clone()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return 0, ioError(j.path, os.ErrClosed)
	}
	if n, err := j.f.Write(line); err != nil || n != len(line) {
		_ = j.f.Truncate(j.size)
		if err == nil {
			err = io.ErrShortWrite
		}
		return 0, ioError(j.path, err)
	}
	j.size += int64(len(line))
	j.records++
	j.written++
	j.remember(&rec)
	return j.written, nil
}

// SyncTo returns once line seq is on disk: one fdatasync for everything
// written so far; callers waiting meanwhile find their line covered.
func (j *Journal) SyncTo(seq uint64) error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	if j.synced >= seq {
		return nil
	}
	j.mu.Lock()
	upto, f := j.written, j.f
	j.mu.Unlock()
	if f == nil {
		return ioError(j.path, os.ErrClosed)
	}
	if err := fdatasync(f); err != nil {
		return ioError(j.path, err)
	}
	j.synced = upto
	return nil
}

func (j *Journal) compactIfDue() error {
	j.mu.Lock()
	due := j.records >= CompactMinRecords && j.records > 2*j.live
	j.mu.Unlock()
	if !due {
		return nil
	}
	return j.Compact()
}

// Compact rewrites the journal as its header and the newest record of
// each pending or dead-lettered event (delivered events are dropped):
// `<journal>.compact`, fsync, rename over the journal, fsync the directory.
func (j *Journal) Compact() error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return ioError(j.path, os.ErrClosed)
	}
	buf := HeaderLine(nowMs())
	n := 1
	var order []string
	for _, id := range j.order {
		r := j.events[id]
		if !isLive(r) {
			delete(j.events, id)
			continue
		}
		line, err := EventLine(r)
		if err != nil {
			return err
		}
		buf = append(buf, line...)
		order = append(order, id)
		n++
	}
	tmp := j.path + ".compact"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return ioError(tmp, err)
	}
	_, werr := f.Write(buf)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		_ = os.Remove(tmp)
		return ioError(tmp, err)
	}
	if err := os.Rename(tmp, j.path); err != nil {
		return ioError(j.path, err)
	}
	if err := syncDir(j.path); err != nil {
		return err
	}
	nf, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return ioError(j.path, err)
	}
	_ = j.f.Close()
	j.f, j.records, j.size, j.order = nf, n, int64(len(buf)), order
	j.synced = j.written // everything written so far is in the fsynced rewrite
	j.compactions++
	return nil
}

// Close closes the file and removes the lock (a clean exit, a drain).
func (j *Journal) Close() error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	if rerr := os.Remove(j.lock); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	if err != nil {
		return ioError(j.path, err)
	}
	return nil
}
