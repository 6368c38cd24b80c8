package rollout_test

import (
	"strings"
	"testing"
	"time"

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
	if ev := fl.Tick(ctx); ev.Kind != rollout.NoRecord {
		t.Fatalf("before any publish: %v", ev.Kind)
	}
	local := e.Info().SHA256
	fl.Finished(true)
	next := testrollout.Variant("v2")
	sha := f.Store(next, nil)
	f.Publish(sha, nil)

	ev := fl.Tick(ctx)
	if ev.Kind != rollout.Swapped || ev.Epoch != 1 || ev.Old.SHA256 != local || ev.New.SHA256 != sha || e.Info().Source != rollout.Source {
		t.Fatalf("after the publish: %+v (running %+v)", ev, e.Info())
	}
	if s := status(f, "go-a"); s.ArtifactSHA256 != local || s.Epoch != 0 || s.Events != 1 || s.DeadLetters != 1 {
		t.Fatalf("the status written before the swap: %+v", s)
	}
	hsets, gets := f.Calls("hset"), f.Calls("getrange")
	if ev := fl.Tick(ctx); ev.Kind != rollout.Idle {
		t.Fatalf("a settled epoch: %v", ev.Kind)
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
	if r.count(rollout.Swapped) != 1 || r.count(rollout.Refused) != 0 {
		t.Fatalf("reports: %+v", r.events)
	}
}

func TestTheCanaryShareIsChosenByTheReplicasBucket(t *testing.T) {
	f := testrollout.New(t)
	stable := rp.EmbeddedArtifact()
	f.Publish(f.Store(stable, nil), nil)
	canary := f.Store(testrollout.Variant("canary"), nil)
	f.Publish(testrollout.Digest(stable), &rollout.Canary{SHA256: canary, Percent: 50})
	// go-a's bucket is 43 (< 50: the canary), go-b's 92 (stable)
	if rollout.Bucket("go-a") != 43 || rollout.Bucket("go-b") != 92 {
		t.Fatalf("buckets %d %d", rollout.Bucket("go-a"), rollout.Bucket("go-b"))
	}
	in, out := engine(t), engine(t)
	var r reports
	if ev := follower(f, "go-a", in, &r).Tick(ctx); ev.Kind != rollout.Swapped || in.Info().SHA256 != canary {
		t.Fatalf("go-a: %v, running %s", ev.Kind, in.Info().SHA256)
	}
	if ev := follower(f, "go-b", out, &r).Tick(ctx); ev.Kind != rollout.Settled || out.Info().SHA256 != testrollout.Digest(stable) {
		t.Fatalf("go-b: %v, running %s", ev.Kind, out.Info().SHA256)
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
			f.Admin.HSet(ctx, rollout.ArtifactKey(sha), "bytes", other, "signature", testrollout.Sign(f.Priv, testrollout.Digest(other)))
			f.Publish(sha, nil)
		}},
		{"signed bytes that are not a component", "artifact_invalid", func(f *testrollout.Fleet) {
			f.Publish(f.Store([]byte("not a wasm component"), nil), nil)
		}},
		{"a record of 1 MiB (4,097 bytes of it read)", "rollout_record_invalid", func(f *testrollout.Fleet) {
			f.SetRecord(string(rollout.Record{V: 1, Epoch: 1, Stable: testrollout.Digest([]byte("x"))}.Canonical()) + strings.Repeat(" ", 1<<20))
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
			if ev.Kind != rollout.Refused || string(ev.Refusal.Code) != c.code || e.Info().SHA256 != running {
				t.Fatalf("%v %+v, running %s", ev.Kind, ev.Refusal, e.Info().SHA256)
			}
			line := ev.String()
			if !strings.HasPrefix(line, "policy artifact refused source=redis sha256=") ||
				!strings.Contains(line, " code="+c.code+": ") || !strings.HasSuffix(line, "; keeping sha256="+running) {
				t.Fatalf("the log line: %s", line)
			}
			if ev := fl.Tick(ctx); ev.Kind != rollout.Idle || r.count(rollout.Refused) != 1 {
				t.Fatalf("the second tick: %v; %d refusals reported", ev.Kind, r.count(rollout.Refused))
			}
			s := status(f, "go-a")
			if s.Refusal == nil || string(s.Refusal.Code) != c.code || s.ArtifactSHA256 != running || s.Epoch != f.Epoch {
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
	if ev := fl.Tick(ctx); ev.Kind != rollout.Refused {
		t.Fatalf("%v", ev.Kind)
	}
	f.Store(raw, nil) // fixed, but the record did not change
	if ev := fl.Tick(ctx); ev.Kind != rollout.Idle {
		t.Fatalf("the same epoch again: %v", ev.Kind)
	}
	f.Publish(sha, nil) // the next epoch names it again
	if ev := fl.Tick(ctx); ev.Kind != rollout.Swapped || e.Info().SHA256 != sha {
		t.Fatalf("the next epoch: %v", ev.Kind)
	}
}

func TestRedisDownKeepsTheArtifactAndIsReportedOnce(t *testing.T) {
	f := testrollout.New(t)
	e := engine(t)
	var r reports
	fl, err := rollout.NewFollower(rollout.Config{Client: testrollout.Client(t, testredis.FreePort(t)), Trusted: f.Trusted, Engine: e, ReplicaID: "go-a", Report: r.add})
	if err != nil {
		t.Fatal(err)
	}
	running := e.Info().SHA256
	for range 3 {
		if ev := fl.Tick(ctx); ev.Kind != rollout.StoreFailed || e.Info().SHA256 != running {
			t.Fatalf("%v", ev.Kind)
		}
	}
	if r.count(rollout.StoreFailed) != 1 {
		t.Fatalf("%d failures reported for one run of failures", r.count(rollout.StoreFailed))
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
	for range 2 {
		if ev := fl.Tick(ctx); ev.Kind != rollout.StoreFailed || !strings.Contains(ev.Err.Error(), "NOPERM") {
			t.Fatalf("%v %v", ev.Kind, ev.Err)
		}
	}
	f.Admin.Do(ctx, "ACL", "SETUSER", "default", "+hset")
	if ev := fl.Tick(ctx); ev.Kind != rollout.Swapped || r.count(rollout.StoreFailed) != 1 || r.count(rollout.StoreRecovered) != 1 {
		t.Fatalf("%v; %d failures, %d recoveries reported", ev.Kind, r.count(rollout.StoreFailed), r.count(rollout.StoreRecovered))
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
	if ev := fl.Tick(ctx); ev.Kind != rollout.StoreFailed || ev.Epoch != 1 {
		t.Fatalf("%v %v", ev.Kind, ev.Err)
	}
	if s := fl.Status(); s.Epoch != 0 || s.Refusal != nil {
		t.Fatalf("a store failure settles nothing: %+v", s)
	}
	f.Admin.Do(ctx, "ACL", "SETUSER", "default", "+hstrlen")
	if ev := fl.Tick(ctx); ev.Kind != rollout.Swapped || e.Info().SHA256 != sha {
		t.Fatalf("%v %v", ev.Kind, ev.Err)
	}
}

func TestAFollowerRefusesAReplicaIDOutside1To200BytesOfUTF8(t *testing.T) {
	f := testrollout.New(t)
	for _, id := range []string{"", strings.Repeat("x", 201), "\xff"} {
		if _, err := rollout.NewFollower(rollout.Config{Client: testrollout.Client(t, f.Port), Trusted: f.Trusted, Engine: engine(t), ReplicaID: id}); err == nil {
			t.Errorf("replica id %q accepted", id)
		}
	}
}

// The status record's since_ms, events and dead_letters start again when
// another artifact runs, whoever swapped it (a file swap too).
func TestAnArtifactSwappedByAnotherPathRestartsTheStatusCounts(t *testing.T) {
	f := testrollout.New(t)
	e := engine(t)
	var r reports
	fl := follower(f, "go-a", e, &r)
	fl.Finished(false)
	fl.Finished(true)
	if s := fl.Status(); s.Events != 2 || s.DeadLetters != 1 {
		t.Fatalf("%+v", s)
	}
	before := fl.Status().SinceMs
	time.Sleep(5 * time.Millisecond)
	if _, err := e.SwapArtifact(ctx, testrollout.Variant("a file swap"), ""); err != nil {
		t.Fatal(err)
	}
	fl.Tick(ctx)
	if s := status(f, "go-a"); s.Events != 0 || s.DeadLetters != 0 || s.SinceMs <= before || s.ArtifactSHA256 != e.Info().SHA256 {
		t.Fatalf("after another path's swap: %+v (since before %d)", s, before)
	}
}
