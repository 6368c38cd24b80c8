package journal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestANewJournalIsPrivateAndACleanCloseRemovesTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); err != nil {
		t.Fatalf("no lock while open: %v", err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("journal mode %v %v, want 0600 (pending records hold full target URLs)", st.Mode(), err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock outlived Close: %v", err)
	}
}

func TestLinesAppendedAreReadBackWholeAndATruncateCutsTheTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	if err := os.WriteFile(path, []byte("h\nx\ntorn"), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if b, err := j.Bytes(); err != nil || string(b) != "h\nx\ntorn" {
		t.Fatalf("bytes %q %v", b, err)
	}
	if err := j.Truncate(4); err != nil { // the engine's journal_truncate {keep_bytes: 4}
		t.Fatal(err)
	}
	if err := j.Append("a\n", "b\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "h\nx\na\nb\n" {
		t.Fatalf("file %q", b)
	}
	var je *Error
	if err := j.Truncate(100); !errors.As(err, &je) || je.Code != CodeIO {
		t.Fatalf("a cut past the end: %v", err)
	}
}

func TestConcurrentAppendsAreAllOnDiskAndEachLineIsWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := j.Append(fmt.Sprintf("line %d of %s\n", i, strings.Repeat("x", 512))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	_ = j.Close()
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 64 {
		t.Fatalf("%d lines, want 64", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "line ") || !strings.HasSuffix(l, strings.Repeat("x", 512)) {
			t.Fatalf("a line is not whole: %q", l)
		}
	}
}

func TestReplaceMakesTheTextTheWholeJournalAndLaterLinesFollowIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append("h\n", "old 1\n", "old 2\n"); err != nil {
		t.Fatal(err)
	}
	if err := j.Replace("h2\nlive\n"); err != nil { // the engine's journal_compact
		t.Fatal(err)
	}
	if err := j.Append("next\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "h2\nlive\nnext\n" {
		t.Fatalf("file %q", b)
	}
	if _, err := os.Stat(path + ".compact"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the .compact file is left: %v", err)
	}
	if b, err := j.Bytes(); err != nil || string(b) != "h2\nlive\nnext\n" {
		t.Fatalf("bytes %q %v", b, err)
	}
}

func TestALockLeftByAKilledWriterIsRemovedAndALiveForeignOrUnreadableOneIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	lock := func(text string) {
		if err := os.WriteFile(LockPath(path), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	lock(fmt.Sprintf(`{"pid": %d, "host": %q, "started_at_ms": 1}`, dead.Process.Pid, host))
	j, err := Open(path)
	if err != nil {
		t.Fatalf("a stale lock was not taken over: %v", err)
	}
	raw, _ := os.ReadFile(LockPath(path))
	if h, ok := holderOf(raw); !ok || h.Pid != int64(os.Getpid()) || h.Host != host {
		t.Fatalf("lock holds %s", raw)
	}
	var je *Error
	if _, err := Open(path); !errors.As(err, &je) || je.Code != CodeLocked ||
		!strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second writer: %v", err)
	}
	_ = j.Close()
	for _, text := range []string{
		fmt.Sprintf(`{"pid": %d, "host": "another-host.example", "started_at_ms": 1}`, dead.Process.Pid), // another host's
		fmt.Sprintf(`{"pid": 1, "host": %q, "started_at_ms": 1}`, host),                                  // alive
		`not json`, // never guessed stale
	} {
		lock(text)
		if _, err := Open(path); !errors.As(err, &je) || je.Code != CodeLocked {
			t.Fatalf("lock %s: %v, want journal_locked", text, err)
		}
		if raw, _ := os.ReadFile(LockPath(path)); string(raw) != text {
			t.Fatalf("a refused open changed the holder's lock: %s", raw)
		}
	}
}

func TestAWriteToAClosedJournalIsAJournalIOErrorNotAPanic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, _ := Open(path)
	_ = j.Close()
	var je *Error
	for _, err := range []error{j.Append("a\n"), j.Truncate(0), j.Replace("h\n"), func() error { _, err := j.Bytes(); return err }()} {
		if !errors.As(err, &je) || je.Code != CodeIO {
			t.Fatalf("after close: %v", err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

func TestALeftoverCompactCopyIsDeletedAtOpenAndTheJournalKeptWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	if err := os.WriteFile(path, []byte("whole\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".compact", []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := os.Stat(path + ".compact"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the leftover copy is still there: %v", err)
	}
	if b, err := j.Bytes(); err != nil || string(b) != "whole\n" {
		t.Fatalf("bytes %q %v", b, err)
	}
}
