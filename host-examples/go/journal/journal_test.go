package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// vectorRecord is the event of the vector case "one pending event is due", as a Record.
func vectorRecord(t *testing.T, id string) Record {
	t.Helper()
	for _, c := range loadVectors(t).Cases {
		if c.Name == "one pending event is due" {
			payload := []byte(strings.TrimSuffix(strings.SplitN(c.Lines[1], " ", 2)[1], "\n"))
			r, err := parseEvent(payload, 2, 1)
			if err != nil {
				t.Fatal(err)
			}
			r.EventID = id
			return r
		}
	}
	t.Fatal("vector case not found")
	return Record{}
}

func TestANewJournalStartsWithItsHeaderIsPrivateAndACleanCloseRemovesTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := Open(path, testHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); err != nil {
		t.Fatalf("no lock while open: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	crc, payload, _ := strings.Cut(strings.TrimSuffix(string(raw), "\n"), " ")
	var h map[string]any
	if crc != fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(payload))) || json.Unmarshal([]byte(payload), &h) != nil ||
		h["type"] != "header" || h["format"] != Format || h["v"] != 2.0 {
		t.Fatalf("not a header line: %q", raw)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	if _, err := os.Stat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock outlived Close: %v", err)
	}
}

func TestRecordsAppendedAreReadBackNewestFirstSeenOrderAndWithTheirBody(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := Open(path, testHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	a, b := vectorRecord(t, "a"), vectorRecord(t, "b")
	b.BodyB64 = nil
	a.SetBody([]byte(`{"x":"<&>"}`))
	for _, r := range []Record{a, b} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	a.Attempts = 2
	_ = j.Append(a)
	_ = j.Close()
	back, err := ReadFile(path, testHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].EventID != "a" || back[0].Attempts != 2 || back[1].EventID != "b" {
		t.Fatalf("read back %+v", back)
	}
	if body, ok, err := back[0].Body(); !ok || err != nil || string(body) != `{"x":"<&>"}` {
		t.Fatalf("body %q %v %v", body, ok, err)
	}
	if _, ok, _ := back[1].Body(); ok {
		t.Fatal("a record without body_b64 read back with one")
	}
	if raw, _ := os.ReadFile(path); !bytes.Contains(raw, []byte(`"offsets_ms":[`)) || !bytes.Contains(raw, []byte(`"stop_reason":null`)) {
		t.Fatalf("the event line misses fields of the table: %s", raw)
	}
}

func TestConcurrentAppendsAreAllOnDiskAndEachLineIsWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := Open(path, testHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- j.Append(vectorRecord(t, fmt.Sprintf("e%d", i)))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	_ = j.Close()
	back, err := ReadFile(path, testHasher(t))
	if err != nil || len(back) != 64 {
		t.Fatalf("%d records back, %v", len(back), err)
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
	j, err := Open(path, testHasher(t))
	if err != nil {
		t.Fatalf("a stale lock was not taken over: %v", err)
	}
	raw, _ := os.ReadFile(LockPath(path))
	if h, ok := holderOf(raw); !ok || h.Pid != int64(os.Getpid()) || h.Host != host {
		t.Fatalf("lock holds %s", raw)
	}
	var je *Error
	if _, err := Open(path, testHasher(t)); !errors.As(err, &je) || je.Code != CodeLocked ||
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
		if _, err := Open(path, testHasher(t)); !errors.As(err, &je) || je.Code != CodeLocked {
			t.Fatalf("lock %s: %v, want journal_locked", text, err)
		}
		if raw, _ := os.ReadFile(LockPath(path)); string(raw) != text {
			t.Fatalf("a refused open changed the holder's lock: %s", raw)
		}
	}
}

func TestCompactionKeepsTheHeaderAndTheNewestRecordOfEachLiveEventAndDropsDeliveredOnes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	if err := os.WriteFile(path+".compact", []byte("half a rewrite"), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path, testHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".compact"); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a leftover .compact survived Open")
	}
	for i := 0; i < CompactMinRecords+10; i++ {
		r := vectorRecord(t, fmt.Sprintf("e%d", i%4))
		r.Attempts = uint32(i)
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	done := vectorRecord(t, "done")
	done.Status = StatusDelivered
	_ = j.Append(done)
	if err := j.Compact(); err != nil {
		t.Fatal(err)
	}
	if j.Compactions() < 2 {
		t.Fatalf("%d compactions, want the automatic one and the asked one", j.Compactions())
	}
	_ = j.Close()
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], `"type":"header"`) {
		t.Fatalf("%d lines after compaction: %q", len(lines), lines)
	}
	back, err := ReadFile(path, testHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint32{}
	for _, r := range back {
		got[r.EventID] = r.Attempts
	}
	last := CompactMinRecords + 9 // the last i; e(i%4) holds it
	want := map[string]uint32{}
	for i := last - 3; i <= last; i++ {
		want[fmt.Sprintf("e%d", i%4)] = uint32(i)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after compaction %v, want %v", got, want)
	}
}

func TestATornTailIsCutBeforeTheNextAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, _ := Open(path, testHasher(t))
	_ = j.Append(vectorRecord(t, "a"))
	_ = j.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	_, _ = f.WriteString(`0badc0de {"v":1,"type":"event","event_id":"b"`) // a crash mid-write
	f.Close()
	j, err := Open(path, testHasher(t))
	if err != nil || j.TornBytes() == 0 {
		t.Fatalf("open: %v, torn %d", err, j.TornBytes())
	}
	_ = j.Append(vectorRecord(t, "c"))
	_ = j.Close()
	back, err := ReadFile(path, testHasher(t))
	if err != nil || len(back) != 2 || back[0].EventID != "a" || back[1].EventID != "c" {
		t.Fatalf("read back %v %v", back, err)
	}
}

func TestAWriteToAClosedJournalIsAJournalIOErrorNotAPanic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, _ := Open(path, testHasher(t))
	_ = j.Close()
	var je *Error
	if err := j.Append(vectorRecord(t, "a")); !errors.As(err, &je) || je.Code != CodeIO {
		t.Fatalf("append after close: %v", err)
	}
}

func TestARecordThatBreaksTheTableIsRefusedNamingTheFieldWithItsPath(t *testing.T) {
	r := vectorRecord(t, "a")
	line, err := EventLine(&r)
	if err != nil {
		t.Fatal(err)
	}
	var base map[string]any
	if err := json.Unmarshal(bytes.SplitN(bytes.TrimSuffix(line, []byte("\n")), []byte(" "), 2)[1], &base); err != nil {
		t.Fatal(err)
	}
	policy := func(edit func(p map[string]any)) func(map[string]any) {
		return func(rec map[string]any) { edit(rec["policy"].(map[string]any)) }
	}
	for field, edit := range map[string]func(map[string]any){
		"priority":              func(rec map[string]any) { rec["priority"] = 1 },
		"event_id":              func(rec map[string]any) { rec["event_id"] = nil },
		"deadline_ms":           func(rec map[string]any) { delete(rec, "deadline_ms") },
		"attempts":              func(rec map[string]any) { rec["attempts"] = 1.5 },
		"offsets_ms":            func(rec map[string]any) { rec["offsets_ms"] = []any{0, nil} },
		"stop_reason":           func(rec map[string]any) { rec["stop_reason"] = "gave_up" },
		"dead_letter":           func(rec map[string]any) { rec["dead_letter"] = 3 },
		"body_b64":              func(rec map[string]any) { rec["body_b64"] = nil },
		"policy":                func(rec map[string]any) { rec["policy"] = 5 },
		"policy.max_ms":         policy(func(p map[string]any) { p["max_ms"] = 1 }),
		"policy.hard_cap":       policy(func(p map[string]any) { p["hard_cap"] = 1 << 33 }),
		"policy.backoff.cap":    policy(func(p map[string]any) { p["backoff"].(map[string]any)["cap"] = 1 }),
		"policy.backoff.jitter": policy(func(p map[string]any) { p["backoff"].(map[string]any)["jitter"] = "some" }),
		"policy.budget.ratio":   policy(func(p map[string]any) { p["budget"].(map[string]any)["ratio"] = "a" }),
		"policy.budget.sliding": policy(func(p map[string]any) { delete(p["budget"].(map[string]any), "sliding") }),
		"dead_letter.stop_reason": func(rec map[string]any) {
			rec["dead_letter"] = map[string]any{"event_id": "a", "endpoint_id": "e", "attempts": 1, "elapsed_ms": 1, "stop_reason": "x"}
		},
	} {
		var rec map[string]any
		raw, _ := json.Marshal(base)
		_ = json.Unmarshal(raw, &rec)
		edit(rec)
		payload, _ := json.Marshal(rec)
		_, perr := parseEvent(payload, 7, 2)
		if perr == nil || perr.Code != CodeRecordInvalid || perr.Field != field || perr.Line != 7 {
			t.Errorf("%s: got %v, want journal_record_invalid naming %s at line 7", field, perr, field)
		}
	}
	if _, perr := parseEvent(bytes.SplitN(bytes.TrimSuffix(line, []byte("\n")), []byte(" "), 2)[1], 7, 2); perr != nil {
		t.Fatalf("the unedited record: %v", perr)
	}
}
