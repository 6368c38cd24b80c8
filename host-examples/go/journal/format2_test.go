package journal

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestTheFormatTwoRunnerFailsACaseWhoseHeldMsIsWrong(t *testing.T) {
	f := loadVectorFile(t, "journal2.json", "webhook-retry-policy/journal-vectors 2")
	for _, c := range f.Cases {
		if c.Name != "held records resume due, their hold ending later or already over" {
			continue
		}
		for id, ev := range c.Expect.Events {
			wrong := *ev.HeldMs + 1
			ev.HeldMs = &wrong
			c.Expect.Events[id] = ev
			break
		}
		if why := runCaseOf(t, c, t.TempDir(), 2); why == "" {
			t.Fatal("a wrong held_ms passed")
		}
		return
	}
	t.Fatal("case not found")
}

func TestAHeldRecordWithAHealthSectionIsWrittenAsVersionTwoAndReadBackWhole(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t)
	doc, err := e.LoadHealthDocument(ctx, []byte(`{"version":"v1","health":{"circuit":null},"classes":{"c":{"window_ms":900000,"hard_cap":16,
		"backoff":{"base_ms":1000,"factor":2,"cap_ms":60000,"jitter":"full"},"budget":{"ratio":0.1,"window_ms":60000,"min_sample":10,"sliding":true}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cl := doc.Classes[0]
	compiled, err := e.Compile(ctx, cl.Policy, cl.Health)
	if err != nil {
		t.Fatal(err)
	}
	defer compiled.Close()
	adm, err := compiled.Admit(ctx, "c", doc.Version, 5_000)
	if err != nil {
		t.Fatal(err)
	}
	r := Admission("ev-1", "ep-1", "https://example.com/h", cl.Policy, adm)
	reason, of := "circuit_open", "ev-0"
	r.Health, r.Status, r.HoldReason, r.HeldUntilMs, r.HeldSinceMs, r.HeldMs = cl.Health, StatusHeld, &reason, 9_000, 6_000, 250
	r.NeedsReserve, r.WakeRefusals, r.ReplayOf = true, 2, &of
	r.ReplayedDeadLetter = &rp.DeadLetter{EventID: "ev-0", EndpointID: "ep-1", Attempts: 3, ElapsedMs: 10, StopReason: rp.StopReasonMaxAttemptsExhausted}
	path := filepath.Join(t.TempDir(), "j")
	j, err := Open(path, testHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(r); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	back, err := ReadFile(path, testHasher(t))
	if err != nil {
		t.Fatalf("the written record does not read back (hash check through load-health-document): %v", err)
	}
	if len(back) != 1 || !reflect.DeepEqual(back[0], r) {
		t.Fatalf("read back %+v\nwrote     %+v", back, r)
	}
	r.Health = nil // the section dropped: the hash no longer matches
	if _, err := Read(append(HeaderLine(1), mustLine(t, &r)...), testHasher(t)); err == nil {
		t.Fatal("a record whose health section was dropped passed the hash check")
	}
}

func mustLine(t *testing.T, r *Record) []byte {
	t.Helper()
	l, err := EventLine(r)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestCompactionDropsReplayedDeadLettersAndKeepsHeldEvents(t *testing.T) {
	base := vectorRecord(t, "x")
	as := "dl~r1"
	held, dead, replayed := base.Clone(), base.Clone(), base.Clone()
	reason := "paused"
	held.EventID, held.Status, held.HoldReason, held.HeldUntilMs = "held", StatusHeld, &reason, 1
	dead.EventID, dead.Status = "dl2", StatusDeadLettered
	replayed.EventID, replayed.Status, replayed.ReplayedAs = "dl", StatusDeadLettered, &as
	if !isLive(&held) || !isLive(&dead) || isLive(&replayed) {
		t.Fatalf("live: held %v, dead letter %v, replayed dead letter %v; want true, true, false", isLive(&held), isLive(&dead), isLive(&replayed))
	}
}
