package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// The one-writer lock (docs/journal.md, "One writer: the lock"):
// `<journal>.lock`, created with O_CREAT|O_EXCL, holds {"pid", "host",
// "started_at_ms"}. A lock left by a writer of this host whose process is
// gone (kill(pid, 0) fails with ESRCH: it was killed) is stale: removed,
// and the create retried once. Any other holder is journal_locked, named
// (a lock file that is not such JSON is never guessed stale). Not flock:
// one lock every language understands (Node has no flock).

// LockPath is the lock file of the journal at path.
func LockPath(path string) string { return path + ".lock" }

type lockHolder struct {
	Pid         int64  `json:"pid"`
	Host        string `json:"host"`
	StartedAtMs uint64 `json:"started_at_ms"`
}

// processGone reports whether process pid of this host is gone.
func processGone(pid int64) bool {
	if pid <= 0 || pid > 1<<31-1 {
		return false
	}
	return errors.Is(syscall.Kill(int(pid), 0), syscall.ESRCH)
}

// holderOf reads a lock file; ok is false when it is not {"pid": N, "host": "..."}.
func holderOf(text []byte) (h lockHolder, ok bool) {
	var raw map[string]json.RawMessage
	if json.Unmarshal(text, &raw) != nil || raw == nil {
		return h, false
	}
	if json.Unmarshal(raw["pid"], &h.Pid) != nil || raw["host"] == nil || raw["host"][0] != '"' ||
		json.Unmarshal(raw["host"], &h.Host) != nil {
		return h, false
	}
	return h, true
}

// acquireLock takes the lock of the journal at path for this process and
// returns the lock file's path.
func acquireLock(path string, nowMs uint64) (string, error) {
	lp := LockPath(path)
	host, _ := os.Hostname()
	body, _ := json.Marshal(lockHolder{Pid: int64(os.Getpid()), Host: host, StartedAtMs: nowMs})
	for retry := 0; retry < 2; retry++ {
		f, err := os.OpenFile(lp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, werr := f.Write(body)
			if werr = errors.Join(werr, f.Sync(), f.Close()); werr != nil {
				_ = os.Remove(lp)
				return "", ioError(lp, werr)
			}
			return lp, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", ioError(lp, err)
		}
		text, _ := os.ReadFile(lp)
		h, ok := holderOf(text)
		if !ok {
			return "", &Error{Code: CodeLocked, Path: lp, Holder: fmt.Sprintf("%q", text),
				Message: fmt.Sprintf("the lock file holds %q, not {\"pid\", \"host\"}: refused (never guessed stale)", text)}
		}
		if retry == 1 || h.Host != host || !processGone(h.Pid) {
			who := fmt.Sprintf("pid %d on %s", h.Pid, h.Host)
			return "", &Error{Code: CodeLocked, Path: lp, Holder: who, Message: "the journal is held by " + who}
		}
		fmt.Fprintf(os.Stderr, "journal: lock %s was left by pid %d (gone): removed\n", lp, h.Pid)
		if err := os.Remove(lp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", ioError(lp, err)
		}
	}
	return "", &Error{Code: CodeLocked, Path: lp, Message: "taken again while a stale lock was removed"}
}
