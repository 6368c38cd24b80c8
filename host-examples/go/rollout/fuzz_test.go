package rollout_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testrollout"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

// seeds adds every text of field in group of the rollout vectors to f.
func seeds(f *testing.F, group, field string) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "tests", "vectors-rollout", "rollout.json"))
	if err != nil {
		f.Fatal(err)
	}
	var doc map[string]json.RawMessage
	var cases []map[string]any
	if json.Unmarshal(raw, &doc) != nil || json.Unmarshal(doc[group], &cases) != nil {
		f.Fatal("rollout.json does not read")
	}
	for _, c := range cases {
		if s, ok := c[field].(string); ok {
			f.Add([]byte(s))
		}
	}
}

// Any record text the store answers is followed or refused with
// rollout_record_invalid inside the artifact: never a trap, never an input
// the follower refuses (the glue passes any bytes as its text).
func FuzzAnyRecordTextIsFollowedOrRefusedInsideTheArtifact(f *testing.F) {
	seeds(f, "select", "record")
	e := engine(f)
	_, trust := testrollout.SigningKey(f)
	f.Fuzz(func(t *testing.T, record []byte) {
		store, client := newFakeStore(t)
		store.strings[rollout.StateKey] = string(record)
		var r reports
		ev := newFollower(t, client, trust, "go-a", e, &r).Tick(ctx)
		var re *rollout.Error
		switch {
		case errors.As(ev.Err, &re):
			t.Fatalf("%q: the follower refused the host's input: %v", record, re)
		case ev.Err != nil:
			t.Fatalf("%q: %v", record, ev.Err)
		case ev.Refused != nil && ev.Refused.Code != "rollout_record_invalid" && ev.Refused.Code != "rollout_artifact_missing":
			t.Fatalf("%q: refused %+v", record, ev.Refused)
		}
	})
}

// Any trust text opens a follower with at least one key id, or is
// rollout_trust_invalid (never a trap).
func FuzzAnyTrustTextOpensAFollowerOrIsRolloutTrustInvalid(f *testing.F) {
	seeds(f, "trust", "pem")
	e := engine(f)
	f.Fuzz(func(t *testing.T, pem []byte) {
		_, client := newFakeStore(t)
		fl, err := rollout.NewFollower(ctx, rollout.Config{Client: client, TrustPEM: pem, Engine: e, ReplicaID: "go-a"})
		var re *rollout.Error
		switch {
		case err == nil:
			if len(fl.KeyIDs()) == 0 {
				t.Fatalf("%q: trusted with no key", pem)
			}
		case !errors.As(err, &re) || re.Code != rollout.CodeTrustInvalid:
			t.Fatalf("%q: %v is not rollout_trust_invalid", pem, err)
		}
	})
}
