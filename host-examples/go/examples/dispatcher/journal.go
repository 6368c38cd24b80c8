package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
)

// FileStore keeps records in one append-only journal (journal.jsonl, one
// JSON entry a line) in a directory, and their current state in memory.
//
//   - Every append is fsynced before it returns, so a delivery is
//     acknowledged (its record saved) only once it is on disk.
//   - A torn last line (a crash mid-write) is cut off at open; later
//     appends start on a clean line. A bad line before the last one is
//     corruption and refuses to open (nothing is guessed).
//   - One writer: an exclusive flock on LOCK; a second OpenFileStore on the
//     same directory fails until the first is closed (or its process died).
//   - Compaction rewrites the journal to one line per event (to a temporary
//     file, fsynced, renamed over, directory fsynced) once it holds more
//     than twice as many lines as events.
type FileStore struct {
	mu       sync.Mutex
	dir      string
	lock     *os.File
	journal  *os.File
	lines    int
	records  map[string]*Record
	dead     []DeadLetterRecord
	disabled map[string]bool
}

// ErrStoreLocked is returned when another process holds the store.
var ErrStoreLocked = errors.New("store: another dispatcher holds this store directory (LOCK)")

// OpenFileStore opens (creating) a store directory, taking its lock and
// recovering its journal.
func OpenFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, ErrStoreLocked
	}
	s := &FileStore{dir: dir, lock: lock, records: map[string]*Record{}, disabled: map[string]bool{}}
	if err := s.recover(); err != nil {
		lock.Close()
		return nil, err
	}
	return s, nil
}

func (s *FileStore) path() string { return filepath.Join(s.dir, "journal.jsonl") }

// recover replays the journal and cuts a torn last line.
func (s *FileStore) recover() error {
	f, err := os.OpenFile(s.path(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	r := bufio.NewReader(f)
	var good int64
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break // a line without its newline (or nothing): torn, cut below
		}
		if err != nil {
			f.Close()
			return err
		}
		var e entry
		if jerr := json.Unmarshal(bytes.TrimSpace(line), &e); jerr != nil || e.Record == nil {
			if _, perr := r.Peek(1); perr == nil { // more follows: not a torn tail
				f.Close()
				return fmt.Errorf("store: %s line %d is corrupt (not a torn last line): refusing to guess", s.path(), n)
			}
			break
		}
		s.apply(e)
		good += int64(len(line))
		s.lines++
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	s.journal = f
	return f.Sync()
}

func (s *FileStore) apply(e entry) {
	s.records[e.Record.Event.ID] = e.Record
	if e.DeadLetter != nil {
		s.dead = append(s.dead, *e.DeadLetter)
	}
	if e.Disable {
		s.disabled[e.Record.Event.EndpointID] = true
	}
}

// appendEntry writes one line and fsyncs it; the state changes only then.
func (s *FileStore) appendEntry(e entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.journal == nil {
		return errors.New("store: closed")
	}
	if _, err := s.journal.Write(append(line, '\n')); err != nil {
		return err
	}
	if err := s.journal.Sync(); err != nil {
		return err
	}
	copied := *e.Record
	e.Record = &copied
	s.apply(e)
	s.lines++
	if s.lines > 64 && s.lines > 2*len(s.records) {
		return s.compactLocked()
	}
	return nil
}

// Compact rewrites the journal to one line per event.
func (s *FileStore) Compact() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compactLocked()
}

func (s *FileStore) compactLocked() error {
	dead := map[string]*DeadLetterRecord{}
	for i := range s.dead {
		dead[s.dead[i].EventID] = &s.dead[i]
	}
	tmp := s.path() + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	ids := make([]string, 0, len(s.records))
	for id := range s.records {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := s.records[id]
		line, _ := json.Marshal(entry{Record: r, DeadLetter: dead[id], Disable: dead[id] != nil && dead[id].DisableEndpoint})
		_, _ = w.Write(append(line, '\n'))
	}
	if err := errors.Join(w.Flush(), f.Sync(), f.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.path()); err != nil {
		return err
	}
	if d, err := os.Open(s.dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	nf, err := os.OpenFile(s.path(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	s.journal.Close()
	s.journal, s.lines = nf, len(ids)
	return nil
}

// Close releases the journal and the lock.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.journal == nil {
		return nil
	}
	err := errors.Join(s.journal.Close(), s.lock.Close())
	s.journal = nil
	return err
}
