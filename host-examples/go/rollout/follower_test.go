package rollout_test

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testredis"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/testrollout"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

func TestAFollowerSwapsToAPublishedArtifactThenWritesItsStatusAndTicksWithTwoCommands(t *testing.T) {
	f := testrollout.New(t)
	e := engine(t)
	var r reports
	fl := follower(f, "go-a", e, &r)
	if ev := fl.Tick(ctx); ev.Swapped || ev.Refused != nil || len(ev.Log) != 0 || ev.Err != nil {
		t.Fatalf("before any publish: %+v", ev)
	}
	local := e.Info().SHA256
	fl.Finished(true)
	next := testrollout.Variant("v2")
	sha := f.Store(next, nil)
	f.Publish(sha, nil)

	ev := fl.Tick(ctx)
	if !ev.Swapped || ev.Err != nil || ev.Old.SHA256 != local || ev.New.SHA256 != sha || e.Info().Source != rollout.Source {
		t.Fatalf("after the publish: %+v (running %+v)", ev, e.Info())
	}
	if s := status(f, "go-a"); s.ArtifactSHA256 != local || s.Epoch != 0 || s.Events != 1 || s.DeadLetters != 1 {
		t.Fatalf("the status written before the swap: %+v", s)
	}
	hsets, gets := f.Calls("hset"), f.Calls("getrange")
	if ev := fl.Tick(ctx); ev.Swapped || ev.Err != nil || len(ev.Log) != 0 { // on the swapped-in artifact: the state carried over
		t.Fatalf("a settled epoch: %+v", ev)
	}
	if f.Calls("hset") != hsets+1 || f.Calls("getrange") != gets+1 || f.Calls("hstrlen") != 1 || f.Calls("hmget") != 1 || f.Calls("get") != 0 {
		t.Fatalf("a settled tick is one HSET and one GETRANGE; the swap one HSTRLEN and one HMGET: hset %d->%d getrange %d->%d hstrlen %d hmget %d get %d",
			hsets, f.Calls("hset"), gets, f.Calls("getrange"), f.Calls("hstrlen"), f.Calls("hmget"), f.Calls("get"))
	}
	s := status(f, "go-a")
	if s.ArtifactSHA256 != sha || s.Epoch != 1 || s.Events != 0 || s.DeadLetters != 0 || s.Refusal != nil ||
		s.Language != "go" || s.SinceMs > s.SeenMs || s.SinceMs == 0 || s.PID == 0 {
		t.Fatalf("the status after the swap: %+v", s)
	}
	if len(r.events) != 1 || !r.events[0].Swapped || r.lines(refusedLine) != 0 {
		t.Fatalf("reports: %+v", r.events)
	}
}

func TestTheCanaryShareIsChosenByTheReplicasBucket(t *testing.T) {
	f := testrollout.New(t)
	stable := rp.EmbeddedArtifact()
	f.Publish(f.Store(stable, nil), nil)
	canary := f.Store(testrollout.Variant("canary"), nil)
	f.Publish(testrollout.Digest(stable), &testrollout.Canary{SHA256: canary, Percent: 50})
	// go-a's bucket is 43 (< 50: the canary), go-b's 92 (stable): tests/vectors-rollout
	in, out := engine(t), engine(t)
	var r reports
	if ev := follower(f, "go-a", in, &r).Tick(ctx); !ev.Swapped || in.Info().SHA256 != canary {
		t.Fatalf("go-a: %+v, running %s", ev, in.Info().SHA256)
	}
	b := follower(f, "go-b", out, &r)
	if ev := b.Tick(ctx); ev.Swapped || ev.Refused != nil || out.Info().SHA256 != testrollout.Digest(stable) {
		t.Fatalf("go-b: %+v, running %s", ev, out.Info().SHA256)
	}
	b.Tick(ctx)
	if s := status(f, "go-b"); s.Epoch != 2 {
		t.Fatalf("go-b settled the epoch its artifact already runs: %+v", s)
	}
	if f.Calls("hmget") != 1 {
		t.Fatalf("only the canary replica fetches: %d HMGET", f.Calls("hmget"))
	}
}

// Each refusal keeps the running artifact, settles the epoch, is reported
// once (a second tick is idle) and stays in the status record.
func TestEveryRefusalKeepsTheRunningArtifactAndIsReportedOnceWithItsCode(t *testing.T) {
	otherKey, _ := testrollout.SigningKey(t)
	cases := []struct {
		name, code string
		stage      func(f *testrollout.Fleet) // publishes
	}{
		{"a signature by an untrusted key under a trusted key's id", "rollout_signature_invalid", func(f *testrollout.Fleet) {
			raw := testrollout.Variant("forged")
			f.Publish(f.Store(raw, map[string]string{"signature": testrollout.Sign(otherKey, testrollout.Digest(raw))}), nil)
		}},
		{"a damaged signature", "rollout_signature_invalid", func(f *testrollout.Fleet) {
			f.Publish(f.Store(testrollout.Variant("damaged"), map[string]string{"signature": strings.Repeat("A", 86) + "=="}), nil)
		}},
		{"an unknown key id", "rollout_key_unknown", func(f *testrollout.Fleet) {
			f.Publish(f.Store(testrollout.Variant("unknown"), map[string]string{"key_id": "0123456789abcdef"}), nil)
		}},
		{"an artifact over 4 MiB by HSTRLEN", "artifact_too_large", func(f *testrollout.Fleet) {
			f.Publish(f.Store(make([]byte, rp.MaxArtifactBytes+1), nil), nil)
		}},
		{"no artifact hash", "rollout_artifact_missing", func(f *testrollout.Fleet) {
			f.Publish(testrollout.Digest([]byte("never stored")), nil)
		}},
		{"an artifact hash without its signature", "rollout_artifact_missing", func(f *testrollout.Fleet) {
			f.Publish(f.Store(testrollout.Variant("unsigned"), map[string]string{"signature": ""}), nil)
		}},
		{"bytes whose sha256 is not the key's", "artifact_sha256_mismatch", func(f *testrollout.Fleet) {
			sha := f.Store(testrollout.Variant("one"), nil)
			other := testrollout.Variant("other")
			f.Admin.HSet(ctx, testrollout.ArtifactKey(sha), "bytes", other, "signature", testrollout.Sign(f.Priv, testrollout.Digest(other)))
			f.Publish(sha, nil)
		}},
		{"signed bytes that are not a component", "artifact_invalid", func(f *testrollout.Fleet) {
			f.Publish(f.Store([]byte("not a wasm component"), nil), nil)
		}},
		{"a record of 1 MiB (4,097 bytes of it read)", "rollout_record_invalid", func(f *testrollout.Fleet) {
			f.SetRecord(testrollout.Record(1, testrollout.Digest([]byte("x")), nil) + strings.Repeat(" ", 1<<20))
		}},
		{"an invalid record", "rollout_record_invalid", func(f *testrollout.Fleet) {
			f.SetRecord(`{"v":2,"epoch":1,"stable":"` + testrollout.Digest(testrollout.Variant("x")) + `","canary":null,"previous":[]}`)
		}},
	}
	e := engine(t) // never swapped: shared
	running := e.Info().SHA256
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := testrollout.New(t)
			var r reports
			fl := follower(f, "go-a", e, &r)
			c.stage(f)
			ev := fl.Tick(ctx)
			if ev.Refused == nil || ev.Refused.Code != c.code || ev.Swapped || e.Info().SHA256 != running || len(ev.Log) != 1 {
				t.Fatalf("%+v, running %s", ev, e.Info().SHA256)
			}
			line := ev.Log[0]
			if !strings.HasPrefix(line, "policy artifact refused source=redis sha256=") ||
				!strings.Contains(line, " code="+c.code+": ") || !strings.HasSuffix(line, "; keeping sha256="+running) {
				t.Fatalf("the log line: %s", line)
			}
			if ev := fl.Tick(ctx); ev.Refused != nil || len(ev.Log) != 0 || r.lines(refusedLine) != 1 {
				t.Fatalf("the second tick: %+v; %d refusals reported", ev, r.lines(refusedLine))
			}
			s := status(f, "go-a")
			if s.Refusal == nil || s.Refusal.Code != c.code || s.ArtifactSHA256 != running || s.Epoch != f.Epoch {
				t.Fatalf("the status: %+v refusal %+v", s, s.Refusal)
			}
			if raw, _ := f.Admin.HGet(ctx, rollout.ReplicasKey, "go-a").Result(); c.code == "rollout_record_invalid" &&
				!strings.Contains(raw, `"refusal":{"sha256":null,"code":"rollout_record_invalid"`) {
				t.Fatalf("a refused record names no artifact (sha256 null): %s", raw)
			}
			if c.code == "artifact_too_large" && f.Calls("hmget") != 0 {
				t.Fatalf("an oversized artifact was fetched (%d HMGET)", f.Calls("hmget"))
			}
		})
	}
}

func TestARefusedArtifactIsRetriedOnlyWhenTheRecordChanges(t *testing.T) {
	f := testrollout.New(t)
	e := engine(t)
	var r reports
	fl := follower(f, "go-a", e, &r)
	raw := testrollout.Variant("later signed")
	sha := f.Store(raw, map[string]string{"key_id": "0123456789abcdef"})
	f.Publish(sha, nil)
	if ev := fl.Tick(ctx); ev.Refused == nil {
		t.Fatalf("%+v", ev)
	}
	f.Store(raw, nil) // fixed, but the record did not change
	if ev := fl.Tick(ctx); ev.Refused != nil || ev.Swapped || f.Calls("hmget") != 1 {
		t.Fatalf("the same epoch again: %+v", ev)
	}
	f.Publish(sha, nil) // the next epoch names it again
	if ev := fl.Tick(ctx); !ev.Swapped || e.Info().SHA256 != sha {
		t.Fatalf("the next epoch: %+v", ev)
	}
}

func TestRedisDownKeepsTheArtifactAndIsReportedOnce(t *testing.T) {
	f := testrollout.New(t)
	e := engine(t)
	var r reports
	fl := newFollower(t, testrollout.Client(t, testredis.FreePort(t)), f.TrustPEM, "go-a", e, &r)
	running := e.Info().SHA256
	for range 3 {
		if ev := fl.Tick(ctx); ev.Swapped || ev.Err != nil || e.Info().SHA256 != running {
			t.Fatalf("%+v", ev)
		}
	}
	if r.lines(unreachableLine+running+", retrying every tick: HSET ") != 1 || len(r.events) != 1 {
		t.Fatalf("want one failure reported for one run of failures: %+v", r.events)
	}
}

// A store that answers errors (an ACL without HSET) is a failure like a
// store that is down; the first tick it answers again is reported.
func TestAStoreAnsweringErrorsIsReportedOnceUntilItAnswersAgain(t *testing.T) {
	f := testrollout.New(t)
	e := engine(t)
	var r reports
	fl := follower(f, "go-a", e, &r)
	f.Publish(f.Store(testrollout.Variant("v2"), nil), nil)
	f.Admin.Do(ctx, "ACL", "SETUSER", "default", "-hset")
	for i := range 2 {
		if ev := fl.Tick(ctx); ev.Swapped || (i == 0 && (len(ev.Log) != 1 || !strings.Contains(ev.Log[0], "NOPERM"))) {
			t.Fatalf("%+v", ev)
		}
	}
	f.Admin.Do(ctx, "ACL", "SETUSER", "default", "+hset")
	if ev := fl.Tick(ctx); !ev.Swapped || r.lines(unreachableLine) != 1 || r.lines(reachableLine) != 1 {
		t.Fatalf("%+v; %d failures, %d recoveries reported", ev, r.lines(unreachableLine), r.lines(reachableLine))
	}
}

// A failed HSTRLEN (here an ACL that forbids it) leaves the epoch
// unsettled: the next tick fetches again.
func TestAStoreFailureWhileFetchingIsRetriedAtTheNextTick(t *testing.T) {
	f := testrollout.New(t)
	e := engine(t)
	var r reports
	f.Admin.Do(ctx, "ACL", "SETUSER", "default", "-hstrlen")
	fl := follower(f, "go-a", e, &r)
	sha := f.Store(testrollout.Variant("v2"), nil)
	f.Publish(sha, nil)
	if ev := fl.Tick(ctx); ev.Swapped || len(ev.Log) != 1 || !strings.Contains(ev.Log[0], "HSTRLEN") {
		t.Fatalf("%+v", ev)
	}
	f.Admin.Do(ctx, "ACL", "SETUSER", "default", "+hstrlen")
	if ev := fl.Tick(ctx); !ev.Swapped || e.Info().SHA256 != sha {
		t.Fatalf("%+v", ev)
	}
	fl.Tick(ctx) // writes the status after the swap
	if s := status(f, "go-a"); s.Epoch != 1 || s.Refusal != nil || f.Calls("hstrlen") != 1 {
		t.Fatalf("a store failure settled nothing, the next tick fetched again: %+v", s)
	}
}

func TestAFollowerRefusesAReplicaIDOutside1To200BytesOfUTF8(t *testing.T) {
	f := testrollout.New(t)
	for _, id := range []string{"", strings.Repeat("x", 201), "\xff"} {
		_, err := rollout.NewFollower(ctx, rollout.Config{Client: testrollout.Client(t, f.Port), TrustPEM: f.TrustPEM, Engine: engine(t), ReplicaID: id})
		var re *rollout.Error
		if !errors.As(err, &re) || re.Code != rollout.CodeInputInvalid {
			t.Errorf("replica id %q: %v; want rollout_input_invalid", id, err)
		}
	}
}

func TestATrustTextWithoutAnEd25519KeyIsRefusedWhenTheFollowerOpens(t *testing.T) {
	f := testrollout.New(t)
	_, err := rollout.NewFollower(ctx, rollout.Config{Client: testrollout.Client(t, f.Port), TrustPEM: []byte("no key here\n"), Engine: engine(t), ReplicaID: "go-a"})
	var re *rollout.Error
	if !errors.As(err, &re) || re.Code != rollout.CodeTrustInvalid || re.Message == "" {
		t.Fatalf("%v; want rollout_trust_invalid", err)
	}
	fl := follower(f, "go-a", engine(t), &reports{})
	if ids := fl.KeyIDs(); len(ids) != 1 || ids[0] != testrollout.KeyID(f.Priv.Public().(ed25519.PublicKey)) {
		t.Fatalf("key ids %v", ids)
	}
}
