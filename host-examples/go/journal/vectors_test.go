package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var (
	engineOnce sync.Once
	engineVal  *rp.Engine
	engineErr  error
)

// testEngine is one engine for the package's tests (the embedded artifact).
func testEngine(t *testing.T) *rp.Engine {
	t.Helper()
	engineOnce.Do(func() { engineVal, engineErr = rp.New(context.Background()) })
	if engineErr != nil {
		t.Fatalf("policy artifact: %v", engineErr)
	}
	return engineVal
}

func testHasher(t *testing.T) Hasher { return ComponentHasher(context.Background(), testEngine(t)) }

// The vector file's shapes, read strictly (an unknown field fails the run).
type vectorFile struct {
	Format     string       `json:"format"`
	Spec       string       `json:"spec"`
	Regenerate string       `json:"regenerate"`
	Cases      []vectorCase `json:"cases"`
}

type vectorCase struct {
	Name   string       `json:"name"`
	Lines  []string     `json:"lines"`
	NowMs  uint64       `json:"now_ms"`
	Expect vectorExpect `json:"expect"`
}

type vectorExpect struct {
	Error     *string                `json:"error"`
	Line      *int                   `json:"line"`
	TornBytes *int64                 `json:"torn_bytes"`
	Events    map[string]vectorEvent `json:"events"`
}

type vectorEvent struct {
	Status   string  `json:"status"`
	Attempts uint32  `json:"attempts"`
	Resume   *string `json:"resume"` // "due", a stop reason, or null (not pending or held)
	// journal-vectors 2 only (each expected event has them)
	HeldMs      *uint64 `json:"held_ms,omitempty"`
	HeldUntilMs *uint64 `json:"held_until_ms,omitempty"`
	ReplayedAs  *string `json:"replayed_as,omitempty"`
}

func loadVectors(t *testing.T) vectorFile {
	return loadVectorFile(t, "journal.json", "webhook-retry-policy/journal-vectors 1")
}

func loadVectorFile(t *testing.T, name, format string) vectorFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "tests", "vectors-journal", name))
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var f vectorFile
	if err := d.Decode(&f); err != nil {
		t.Fatalf("tests/vectors-journal/%s: %v", name, err)
	}
	if f.Format != format {
		t.Fatalf("vector format %q", f.Format)
	}
	return f
}

// runCase runs one case through the writer's open path (lock, read, torn
// tail cut, header) and the component's Resume under each record's own
// policy; it returns what differs from the expectation ("" when nothing).
func runCase(t *testing.T, c vectorCase, dir string) string { return runCaseOf(t, c, dir, 1) }

func runCaseOf(t *testing.T, c vectorCase, dir string, format int) string {
	data := []byte(strings.Join(c.Lines, ""))
	path := filepath.Join(dir, fmt.Sprintf("case-%08x.journal", crc32.ChecksumIEEE([]byte(c.Name))))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path, testHasher(t))
	if c.Expect.Error != nil {
		if c.Expect.Line == nil || c.Expect.TornBytes != nil || c.Expect.Events != nil {
			return "an error case takes exactly error and line"
		}
		if err == nil {
			j.Close()
			return fmt.Sprintf("opened; want %s at line %d", *c.Expect.Error, *c.Expect.Line)
		}
		var je *Error
		if !errors.As(err, &je) {
			return fmt.Sprintf("error %v is not a *journal.Error", err)
		}
		if string(je.Code) != *c.Expect.Error || je.Line != *c.Expect.Line {
			return fmt.Sprintf("got %s line %d (%v); want %s line %d", je.Code, je.Line, err, *c.Expect.Error, *c.Expect.Line)
		}
		if back, _ := os.ReadFile(path); !bytes.Equal(back, data) {
			return "a refused journal was changed"
		}
		if _, serr := os.Stat(LockPath(path)); serr == nil {
			return "a refused open left its lock"
		}
		return ""
	}
	if c.Expect.TornBytes == nil || c.Expect.Events == nil || c.Expect.Line != nil {
		return "a success case takes exactly torn_bytes and events"
	}
	if err != nil {
		return fmt.Sprintf("open: %v", err)
	}
	defer j.Close()
	if j.TornBytes() != *c.Expect.TornBytes {
		return fmt.Sprintf("torn_bytes %d, want %d", j.TornBytes(), *c.Expect.TornBytes)
	}
	kept := data[:int64(len(data))-j.TornBytes()]
	onDisk, _ := os.ReadFile(path)
	if !bytes.HasPrefix(onDisk, kept) || (len(onDisk) > len(kept)) != (len(kept) == 0) {
		return fmt.Sprintf("not cut back to the good prefix (%d bytes on disk, %d kept)", len(onDisk), len(kept))
	}
	got := map[string]vectorEvent{}
	for _, r := range j.Recovered() {
		ev := vectorEvent{Status: r.Status, Attempts: r.Attempts}
		if format == 2 {
			heldMs, until := r.HeldMs, r.HeldUntilMs
			ev.HeldMs, ev.HeldUntilMs, ev.ReplayedAs = &heldMs, &until, r.ReplayedAs
		}
		if r.Status == StatusPending || r.Status == StatusHeld {
			res, err := testEngine(t).Resume(context.Background(), r.Policy, r.State(r.Attempts), c.NowMs)
			if err != nil {
				return fmt.Sprintf("resume %s: %v", r.EventID, err)
			}
			verdict := "due"
			if res.Stop != nil {
				verdict = res.Stop.Reason.String()
			}
			ev.Resume = &verdict
		}
		got[r.EventID] = ev
	}
	if !reflect.DeepEqual(got, c.Expect.Events) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(c.Expect.Events)
		return fmt.Sprintf("events %s, want %s", g, w)
	}
	return ""
}

func TestEveryJournalVectorPassesThroughTheOpenPathAndResume(t *testing.T) {
	f := loadVectors(t)
	if len(f.Cases) < 40 {
		t.Fatalf("%d cases: the vector file lost some", len(f.Cases))
	}
	dir := t.TempDir()
	passed := 0
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if why := runCase(t, c, dir); why != "" {
				t.Errorf("case %q: %s", c.Name, why)
				return
			}
			passed++
		})
	}
	t.Logf("journal vectors: %d of %d pass", passed, len(f.Cases))
}

func TestTheRunnerFailsACaseWhoseExpectationIsWrong(t *testing.T) {
	f := loadVectors(t)
	for _, c := range f.Cases {
		if c.Name != "one pending event is due" {
			continue
		}
		c.Expect.Events["ev-1"] = vectorEvent{Status: StatusDelivered, Attempts: 1}
		if why := runCase(t, c, t.TempDir()); why == "" {
			t.Fatal("a wrong expectation passed")
		}
		return
	}
	t.Fatal("case not found")
}

func TestEveryJournalFormatTwoVectorPassesThroughTheOpenPathAndResume(t *testing.T) {
	f := loadVectorFile(t, "journal2.json", "webhook-retry-policy/journal-vectors 2")
	if len(f.Cases) < 30 {
		t.Fatalf("%d cases: the vector file lost some", len(f.Cases))
	}
	dir := t.TempDir()
	passed := 0
	for _, c := range f.Cases {
		for id, ev := range c.Expect.Events {
			if ev.HeldMs == nil || ev.HeldUntilMs == nil {
				t.Fatalf("case %q: event %s lacks held_ms or held_until_ms", c.Name, id)
			}
		}
		t.Run(c.Name, func(t *testing.T) {
			if why := runCaseOf(t, c, dir, 2); why != "" {
				t.Errorf("case %q: %s", c.Name, why)
				return
			}
			passed++
		})
	}
	t.Logf("journal format-2 vectors: %d of %d pass", passed, len(f.Cases))
}
