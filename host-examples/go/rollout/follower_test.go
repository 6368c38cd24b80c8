package rollout

import (
	"context"
	"strings"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testredis"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var ctx = context.Background()

func TestAFollowerSwapsToAPublishedArtifactThenWritesItsStatusAndTicksWithTwoCommands(t *testing.T) {
	f := newFleet(t)
	e := engine(t)
	var r reports
	fl := f.follower("go-a", e, &r)
	if ev := fl.Tick(ctx); ev.Kind != NoRecord {
		t.Fatalf("before any publish: %v", ev.Kind)
	}
	local := e.Info().SHA256
	fl.Finished(true)
	next := variant("v2")
	sha := f.store(next, nil)
	f.publish(sha, nil)

	ev := fl.Tick(ctx)
	if ev.Kind != Swapped || ev.Epoch != 1 || ev.Old.SHA256 != local || ev.New.SHA256 != sha || e.Info().Source != Source {
		t.Fatalf("after the publish: %+v (running %+v)", ev, e.Info())
	}
	if s := f.status("go-a"); s.ArtifactSHA256 != local || s.Epoch != 0 || s.Events != 1 || s.DeadLetters != 1 {
		t.Fatalf("the status written before the swap: %+v", s)
	}
	hsets, gets := f.calls("hset"), f.calls("get")
	if ev := fl.Tick(ctx); ev.Kind != Idle {
		t.Fatalf("a settled epoch: %v", ev.Kind)
	}
	if f.calls("hset") != hsets+1 || f.calls("get") != gets+1 || f.calls("hstrlen") != 1 || f.calls("hmget") != 1 {
		t.Fatalf("a settled tick is one HSET and one GET; the swap one HSTRLEN and one HMGET: hset %d->%d get %d->%d hstrlen %d hmget %d",
			hsets, f.calls("hset"), gets, f.calls("get"), f.calls("hstrlen"), f.calls("hmget"))
	}
	s := f.status("go-a")
	if s.ArtifactSHA256 != sha || s.Epoch != 1 || s.Events != 0 || s.DeadLetters != 0 || s.Refusal != nil ||
		s.Language != "go" || s.SinceMs > s.SeenMs || s.SinceMs == 0 || s.PID == 0 {
		t.Fatalf("the status after the swap: %+v", s)
	}
	if r.count(Swapped) != 1 || r.count(Refused) != 0 {
		t.Fatalf("reports: %+v", r.events)
	}
}

func TestTheCanaryShareIsChosenByTheReplicasBucket(t *testing.T) {
	f := newFleet(t)
	stable := rp.EmbeddedArtifact()
	f.publish(f.store(stable, nil), nil)
	canary := f.store(variant("canary"), nil)
	f.publish(digest(stable), &Canary{SHA256: canary, Percent: 50})
	// go-a's bucket is 43 (< 50: the canary), go-b's 92 (stable)
	if Bucket("go-a") != 43 || Bucket("go-b") != 92 {
		t.Fatalf("buckets %d %d", Bucket("go-a"), Bucket("go-b"))
	}
	in, out := engine(t), engine(t)
	var r reports
	if ev := f.follower("go-a", in, &r).Tick(ctx); ev.Kind != Swapped || in.Info().SHA256 != canary {
		t.Fatalf("go-a: %v, running %s", ev.Kind, in.Info().SHA256)
	}
	if ev := f.follower("go-b", out, &r).Tick(ctx); ev.Kind != Settled || out.Info().SHA256 != digest(stable) {
		t.Fatalf("go-b: %v, running %s", ev.Kind, out.Info().SHA256)
	}
	if f.calls("hmget") != 1 {
		t.Fatalf("only the canary replica fetches: %d HMGET", f.calls("hmget"))
	}
}

// Each refusal keeps the running artifact, settles the epoch, is reported
// once (a second tick is idle) and stays in the status record.
func TestEveryRefusalKeepsTheRunningArtifactAndIsReportedOnceWithItsCode(t *testing.T) {
	otherKey, _ := signingKey(t)
	cases := []struct {
		name, code string
		stage      func(f *fleet) // publishes
	}{
		{"a signature by an untrusted key under a trusted key's id", "rollout_signature_invalid", func(f *fleet) {
			raw := variant("forged")
			f.publish(f.store(raw, map[string]string{"signature": sign(otherKey, digest(raw))}), nil)
		}},
		{"a damaged signature", "rollout_signature_invalid", func(f *fleet) {
			f.publish(f.store(variant("damaged"), map[string]string{"signature": strings.Repeat("A", 86) + "=="}), nil)
		}},
		{"an unknown key id", "rollout_key_unknown", func(f *fleet) {
			f.publish(f.store(variant("unknown"), map[string]string{"key_id": "0123456789abcdef"}), nil)
		}},
		{"an artifact over 4 MiB by HSTRLEN", "artifact_too_large", func(f *fleet) {
			f.publish(f.store(make([]byte, rp.MaxArtifactBytes+1), nil), nil)
		}},
		{"no artifact hash", "rollout_artifact_missing", func(f *fleet) {
			f.publish(digest([]byte("never stored")), nil)
		}},
		{"an artifact hash without its signature", "rollout_artifact_missing", func(f *fleet) {
			f.publish(f.store(variant("unsigned"), map[string]string{"signature": ""}), nil)
		}},
		{"bytes whose sha256 is not the key's", "artifact_sha256_mismatch", func(f *fleet) {
			sha := f.store(variant("one"), nil)
			other := variant("other")
			f.admin.HSet(ctx, ArtifactKey(sha), "bytes", other, "signature", sign(f.priv, digest(other)))
			f.publish(sha, nil)
		}},
		{"signed bytes that are not a component", "artifact_invalid", func(f *fleet) {
			f.publish(f.store([]byte("not a wasm component"), nil), nil)
		}},
		{"an invalid record", "rollout_record_invalid", func(f *fleet) {
			f.setRecord(`{"v":2,"epoch":1,"stable":"` + digest(variant("x")) + `","canary":null,"previous":[]}`)
		}},
	}
	e := engine(t) // never swapped: shared
	running := e.Info().SHA256
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFleet(t)
			var r reports
			fl := f.follower("go-a", e, &r)
			c.stage(f)
			ev := fl.Tick(ctx)
			if ev.Kind != Refused || string(ev.Refusal.Code) != c.code || e.Info().SHA256 != running {
				t.Fatalf("%v %+v, running %s", ev.Kind, ev.Refusal, e.Info().SHA256)
			}
			line := ev.String()
			if !strings.HasPrefix(line, "policy artifact refused source=redis sha256=") ||
				!strings.Contains(line, " code="+c.code+": ") || !strings.HasSuffix(line, "; keeping sha256="+running) {
				t.Fatalf("the log line: %s", line)
			}
			if ev := fl.Tick(ctx); ev.Kind != Idle || r.count(Refused) != 1 {
				t.Fatalf("the second tick: %v; %d refusals reported", ev.Kind, r.count(Refused))
			}
			s := f.status("go-a")
			if s.Refusal == nil || string(s.Refusal.Code) != c.code || s.ArtifactSHA256 != running || s.Epoch != f.epoch {
				t.Fatalf("the status: %+v refusal %+v", s, s.Refusal)
			}
			if c.code == "artifact_too_large" && f.calls("hmget") != 0 {
				t.Fatalf("an oversized artifact was fetched (%d HMGET)", f.calls("hmget"))
			}
		})
	}
}

func TestARefusedArtifactIsRetriedOnlyWhenTheRecordChanges(t *testing.T) {
	f := newFleet(t)
	e := engine(t)
	var r reports
	fl := f.follower("go-a", e, &r)
	raw := variant("later signed")
	sha := f.store(raw, map[string]string{"key_id": "0123456789abcdef"})
	f.publish(sha, nil)
	if ev := fl.Tick(ctx); ev.Kind != Refused {
		t.Fatalf("%v", ev.Kind)
	}
	f.store(raw, nil) // fixed, but the record did not change
	if ev := fl.Tick(ctx); ev.Kind != Idle {
		t.Fatalf("the same epoch again: %v", ev.Kind)
	}
	f.publish(sha, nil) // the next epoch names it again
	if ev := fl.Tick(ctx); ev.Kind != Swapped || e.Info().SHA256 != sha {
		t.Fatalf("the next epoch: %v", ev.Kind)
	}
}

func TestRedisDownKeepsTheArtifactAndIsReportedOnceUntilItAnswers(t *testing.T) {
	f := newFleet(t)
	e := engine(t)
	var r reports
	fl, err := NewFollower(Config{Client: client(t, testredis.FreePort(t)), Trusted: f.trusted, Engine: e, ReplicaID: "go-a", Report: r.add})
	if err != nil {
		t.Fatal(err)
	}
	running := e.Info().SHA256
	for range 3 {
		if ev := fl.Tick(ctx); ev.Kind != StoreFailed || e.Info().SHA256 != running {
			t.Fatalf("%v", ev.Kind)
		}
	}
	if r.count(StoreFailed) != 1 {
		t.Fatalf("%d failures reported for one run of failures", r.count(StoreFailed))
	}
	fl.cfg.Client = client(t, f.port) // the store is back
	if ev := fl.Tick(ctx); ev.Kind != NoRecord || r.count(StoreRecovered) != 1 {
		t.Fatalf("%v, %d recoveries", ev.Kind, r.count(StoreRecovered))
	}
}

// A failed HSTRLEN (here an ACL that forbids it) leaves the epoch
// unsettled: the next tick fetches again.
func TestAStoreFailureWhileFetchingIsRetriedAtTheNextTick(t *testing.T) {
	f := newFleet(t)
	e := engine(t)
	var r reports
	f.admin.Do(ctx, "ACL", "SETUSER", "default", "-hstrlen")
	fl := f.follower("go-a", e, &r)
	sha := f.store(variant("v2"), nil)
	f.publish(sha, nil)
	if ev := fl.Tick(ctx); ev.Kind != StoreFailed || ev.Epoch != 1 {
		t.Fatalf("%v %v", ev.Kind, ev.Err)
	}
	if s := fl.Status(); s.Epoch != 0 || s.Refusal != nil {
		t.Fatalf("a store failure settles nothing: %+v", s)
	}
	f.admin.Do(ctx, "ACL", "SETUSER", "default", "+hstrlen")
	if ev := fl.Tick(ctx); ev.Kind != Swapped || e.Info().SHA256 != sha {
		t.Fatalf("%v %v", ev.Kind, ev.Err)
	}
}

func TestAFollowerRefusesAReplicaIDOutside1To200BytesOfUTF8(t *testing.T) {
	f := newFleet(t)
	for _, id := range []string{"", strings.Repeat("x", 201), "\xff"} {
		if _, err := NewFollower(Config{Client: client(t, f.port), Trusted: f.trusted, Engine: engine(t), ReplicaID: id}); err == nil {
			t.Errorf("replica id %q accepted", id)
		}
	}
}
