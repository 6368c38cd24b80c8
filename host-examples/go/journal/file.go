// Package journal is the file side of the event journal (docs/journal.md)
// for the Go dispatcher: one writer (the lock), the file's bytes read
// whole, lines appended and made durable (fdatasync, one per batch: group
// commit), the file cut back to a length. What the lines say, their CRCs,
// which records win and what a torn tail is are the delivery engine's
// (docs/engine.md sections 7 and 10), and so is when to compact (Replace
// writes what it says): this package never reads a line.
package journal

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// File is one writer's journal, open for appending. Its methods are safe
// for concurrent use.
type File struct {
	path string
	lock string // the lock file, removed by Close

	mu   sync.Mutex
	f    *os.File
	size int64 // bytes of complete batches: a failed write is cut back to it
}

// Open locks the journal at path (created with mode 0600 when missing:
// pending records hold full target URLs) and opens it for appending.
func Open(path string) (*File, error) {
	lock, err := acquireLock(path, uint64(time.Now().UnixMilli()))
	if err != nil {
		return nil, err
	}
	// A leftover `<journal>.compact` is a compaction whose rename never
	// happened: the journal is whole, the copy goes (docs/journal.md).
	if err := os.Remove(path + ".compact"); err != nil && !errors.Is(err, os.ErrNotExist) {
		_ = os.Remove(lock)
		return nil, ioError(path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		_ = os.Remove(lock)
		return nil, ioError(path, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		_ = os.Remove(lock)
		return nil, ioError(path, err)
	}
	return &File{path: path, lock: lock, f: f, size: st.Size()}, nil
}

// Bytes is the whole file as it is now.
func (j *File) Bytes() ([]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil, errClosed(j.path)
	}
	b, err := io.ReadAll(io.NewSectionReader(j.f, 0, j.size))
	if err != nil {
		return nil, ioError(j.path, err)
	}
	return b, nil
}

// Append writes lines (each whole, its LF included) with one write and
// returns once they are on disk (fdatasync). A failed write is cut back:
// the file stays whole lines.
func (j *File) Append(lines ...string) error {
	buf := strings.Join(lines, "")
	if buf == "" {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errClosed(j.path)
	}
	if _, err := j.f.WriteString(buf); err != nil {
		_ = j.f.Truncate(j.size)
		return ioError(j.path, err)
	}
	if err := fdatasync(j.f); err != nil {
		_ = j.f.Truncate(j.size)
		return ioError(j.path, err)
	}
	j.size += int64(len(buf))
	return nil
}

// Truncate cuts the file back to its first keep bytes (a torn tail the
// engine found) and syncs it.
func (j *File) Truncate(keep int64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errClosed(j.path)
	}
	if keep < 0 || keep > j.size {
		return &Error{Code: CodeIO, Path: j.path, Message: "cut to a length outside the file"}
	}
	if err := errors.Join(j.f.Truncate(keep), j.f.Sync()); err != nil {
		return ioError(j.path, err)
	}
	j.size = keep
	return nil
}

// Close closes the file and removes its lock (the records stay).
func (j *File) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	if rerr := os.Remove(j.lock); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, ioError(j.lock, rerr))
	}
	if err != nil {
		return ioError(j.path, err)
	}
	return nil
}

func errClosed(path string) *Error {
	return &Error{Code: CodeIO, Path: path, Message: "the journal is closed"}
}

// Replace makes text the whole journal (the engine's compaction: a header
// and the live records): written to `<journal>.compact`, synced, renamed
// over the journal, the directory synced; later lines append to it.
func (j *File) Replace(text string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errClosed(j.path)
	}
	tmp := j.path + ".compact"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return ioError(tmp, err)
	}
	_, err = f.WriteString(text)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return ioError(tmp, err)
	}
	if err := os.Rename(tmp, j.path); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return ioError(j.path, err)
	}
	if d, err := os.Open(filepath.Dir(j.path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	_ = j.f.Close()
	j.f, j.size = f, int64(len(text))
	return nil
}
