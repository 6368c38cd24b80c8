package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// deadLetters makes three terminal dead letters: a1 (ep_a, at t0), a2
// (ep_a, at t0+1000), b1 (ep_b, at t0+1000), and returns a receiver that
// accepts from then on.
func threeDeadLetters(t *testing.T, h *harness) *receiver {
	accept := false
	rcv := newReceiver(t, h.clock, func(now uint64, w http.ResponseWriter) {
		if accept {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
	})
	h.enqueue("a1", "ep_a", rcv.URL, "guarded")
	h.step()
	h.clock.Advance(1_000)
	h.enqueue("a2", "ep_a", rcv.URL, "guarded")
	h.enqueue("b1", "ep_b", rcv.URL, "guarded")
	h.step()
	if n := len(h.deadLetters()); n != 3 {
		t.Fatalf("%d dead letters, want 3", n)
	}
	accept = true
	return rcv
}

func ptr[T any](v T) *T { return &v }

func TestReplayChoosesByEndpointReasonAndTimeRangeWritesR1IdsAndTheReplayIsDelivered(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	threeDeadLetters(t, h)
	h.clock.Advance(1_000)
	ctx := context.Background()
	res, err := h.d.Replay(ctx, ReplayFilter{EndpointID: "ep_a", StopReason: ptr(rp.StopReasonTerminalResponse), FromMs: ptr(t0 + 500), ToMs: ptr(t0 + 2_000)})
	if err != nil {
		t.Fatal(err)
	}
	if want := (ReplayResult{Replayed: 1, IDs: []string{"a2~r1"}}); !reflect.DeepEqual(res, want) {
		t.Fatalf("replay %+v, want %+v", res, want)
	}
	r := h.state("a2~r1")
	if r.State != StatePending || r.Attempts != 0 || r.ReplayOf != "a2" || r.ReplayedDeadLetter == nil || r.ReplayedDeadLetter.EventID != "a2" ||
		r.Admission.FirstAttemptedAtMs != t0+2_000 || r.Health == nil || r.NextAttemptAtMs != t0+2_000 {
		t.Fatalf("the replay's record %+v", r)
	}
	if dead := h.state("a2"); dead.ReplayedAs != "a2~r1" {
		t.Fatalf("a2's replayed_as %q", dead.ReplayedAs)
	}
	again, err := h.d.Replay(ctx, ReplayFilter{EndpointID: "ep_a"})
	if err != nil || again.Replayed != 1 || again.AlreadyReplayed != 1 || !reflect.DeepEqual(again.IDs, []string{"a1~r1"}) {
		t.Fatalf("a second replay of ep_a: %+v %v, want a1 only (a2 already replayed)", again, err)
	}
	if got := h.metric("webhook_replayed_total"); got != 2 {
		t.Fatalf("webhook_replayed_total %v, want 2", got)
	}
	h.run()
	for _, id := range []string{"a2~r1", "a1~r1"} {
		if r := h.state(id); r.State != StateDelivered {
			t.Fatalf("%s: %s, want delivered", id, r.State)
		}
	}
	if _, ok := h.deadLetters()["b1"]; !ok || h.state("b1").ReplayedAs != "" {
		t.Fatal("b1 (another endpoint) was replayed")
	}
}

func TestAnInterruptedReplayReplaysNothingTwice(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	threeDeadLetters(t, h)
	replayCommitted = func() error { return errors.New("crash after the commit record") }
	t.Cleanup(func() { replayCommitted = nil })
	if _, err := h.d.Replay(context.Background(), ReplayFilter{EndpointID: "ep_b"}); err == nil {
		t.Fatal("the crash was not reported")
	}
	replayCommitted = nil
	h.start() // a new process: the journal has b1~r1 (replay_of b1) but no replayed_as record for b1
	if got := h.state("b1").ReplayedAs; got != "b1~r1" {
		t.Fatalf("b1's replayed_as after the restart %q, want b1~r1 (derived from replay_of)", got)
	}
	res, err := h.d.Replay(context.Background(), ReplayFilter{EndpointID: "ep_b"})
	if err != nil || res.Replayed != 0 || res.AlreadyReplayed != 1 {
		t.Fatalf("the replay run again: %+v %v, want nothing replayed, 1 already replayed", res, err)
	}
	if _, err := h.store.Load("b1~r2"); err == nil {
		t.Fatal("b1 was replayed twice")
	}
}

func TestTheReplayCommandPrintsOneJSONLineAndExits2OnBadFlagsOrAnUnreadablePolicy(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	threeDeadLetters(t, h)
	_ = h.store.Close() // the command is the journal's one writer
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(healthDocument), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	now := strconv.FormatUint(t0+5_000, 10)
	code := replayMain([]string{"--store", h.storeDir, "--policy", policy, "--reason", "terminal_response", "--to-ms", strconv.FormatUint(t0+1, 10), "--now-ms", now}, &out, &errOut)
	if code != 0 || out.String() != `{"replayed":1,"already_replayed":0,"skipped_no_class":0,"ids":["a1~r1"]}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	var res ReplayResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"--store", h.storeDir, "--policy", policy, "--reason", "nope"},
		{"--store", h.storeDir, "--policy", policy, "--limit", "0"},
		{"--policy", policy},
		{"--store", h.storeDir, "--policy", filepath.Join(t.TempDir(), "missing.json")},
		{"--store", h.storeDir, "--bogus"},
	} {
		out.Reset()
		if code := replayMain(bad, &out, &errOut); code != 2 || out.Len() != 0 {
			t.Fatalf("%v: exit %d, stdout %q; want 2 and nothing", bad, code, out.String())
		}
	}
}
