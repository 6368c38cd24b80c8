package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The number of cases of each group of tests/vectors-rollout/rollout.json:
// a runner that skips one cannot pass (regenerating the vectors with more
// cases means updating these).
var wantCases = map[string]int{"bucket": 11, "select": 51, "trust": 8, "verify": 17}

type rolloutVectors struct {
	About               string            `json:"about"`
	SignedMessagePrefix string            `json:"signed_message_prefix"`
	Bucket              []json.RawMessage `json:"bucket"`
	Select              []json.RawMessage `json:"select"`
	Trust               []json.RawMessage `json:"trust"`
	Verify              []json.RawMessage `json:"verify"`
}

type bucketCase struct {
	ReplicaID string `json:"replica_id"`
	Bucket    int    `json:"bucket"`
}

type selectCase struct {
	Name      string `json:"name"`
	Record    string `json:"record"`
	ReplicaID string `json:"replica_id"`
	Expect    struct {
		Desired string `json:"desired"`
		Error   string `json:"error"`
	} `json:"expect"`
}

type trustCase struct {
	Name   string `json:"name"`
	PEM    string `json:"pem"`
	Expect struct {
		KeyIDs []string `json:"key_ids"`
		Error  string   `json:"error"`
	} `json:"expect"`
}

type verifyCase struct {
	Name           string `json:"name"`
	Trust          string `json:"trust"`
	KeyID          string `json:"key_id"`
	Signature      string `json:"signature"`
	ArtifactSHA256 string `json:"artifact_sha256"`
	Expect         string `json:"expect"`
}

// strict decodes raw into v, refusing unknown fields (Wycheproof style).
func strict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// codeOf is err's rollout code, "ok" for nil.
func codeOf(err error) string {
	if err == nil {
		return "ok"
	}
	var re *Error
	if errors.As(err, &re) {
		return string(re.Code)
	}
	return "not a *rollout.Error: " + err.Error()
}

func TestEveryRolloutVectorPassesAndNoneIsSkipped(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "tests", "vectors-rollout", "rollout.json"))
	if err != nil {
		t.Fatalf("tests/vectors-rollout/rollout.json: %v", err)
	}
	var doc rolloutVectors
	if err := strict(raw, &doc); err != nil {
		t.Fatalf("rollout.json: %v", err)
	}
	if doc.SignedMessagePrefix != SignedMessagePrefix {
		t.Fatalf("signed_message_prefix %q; this library signs %q", doc.SignedMessagePrefix, SignedMessagePrefix)
	}
	ran := map[string]int{}
	for i, c := range doc.Bucket {
		var v bucketCase
		if err := strict(c, &v); err != nil {
			t.Fatalf("bucket case %d: %v", i, err)
		}
		if got := Bucket(v.ReplicaID); got != v.Bucket {
			t.Errorf("bucket case %d (replica %q): bucket %d, want %d", i, v.ReplicaID, got, v.Bucket)
		}
		ran["bucket"]++
	}
	for i, c := range doc.Select {
		var v selectCase
		if err := strict(c, &v); err != nil {
			t.Fatalf("select case %d: %v", i, err)
		}
		if (v.Expect.Desired == "") == (v.Expect.Error == "") {
			t.Fatalf("select case %q: expect names neither or both of desired and error", v.Name)
		}
		rec, err := ParseRecord([]byte(v.Record))
		got, want := codeOf(err), "ok"
		if v.Expect.Error != "" {
			want = v.Expect.Error
		}
		if got != want {
			t.Errorf("select case %q: %s, want %s (%v)", v.Name, got, want, err)
		} else if err == nil && rec.Desired(v.ReplicaID) != v.Expect.Desired {
			t.Errorf("select case %q: desired %s, want %s", v.Name, rec.Desired(v.ReplicaID), v.Expect.Desired)
		}
		ran["select"]++
	}
	for i, c := range doc.Trust {
		var v trustCase
		if err := strict(c, &v); err != nil {
			t.Fatalf("trust case %d: %v", i, err)
		}
		trusted, err := ParseTrust([]byte(v.PEM))
		got, want := codeOf(err), "ok"
		if v.Expect.Error != "" {
			want = v.Expect.Error
		}
		if got != want {
			t.Errorf("trust case %q: %s, want %s (%v)", v.Name, got, want, err)
		} else if err == nil && !slices.Equal(trusted.KeyIDs(), v.Expect.KeyIDs) {
			t.Errorf("trust case %q: key ids %v, want %v", v.Name, trusted.KeyIDs(), v.Expect.KeyIDs)
		}
		ran["trust"]++
	}
	for i, c := range doc.Verify {
		var v verifyCase
		if err := strict(c, &v); err != nil {
			t.Fatalf("verify case %d: %v", i, err)
		}
		trusted, err := ParseTrust([]byte(v.Trust))
		if err != nil {
			t.Fatalf("verify case %q: the trust text: %v", v.Name, err)
		}
		if got := codeOf(trusted.Verify(v.KeyID, v.Signature, v.ArtifactSHA256)); got != v.Expect {
			t.Errorf("verify case %q: %s, want %s", v.Name, got, v.Expect)
		}
		ran["verify"]++
	}
	total := 0
	for group, want := range wantCases {
		if ran[group] != want {
			t.Errorf("%s: ran %d cases, want %d", group, ran[group], want)
		}
		total += ran[group]
	}
	t.Logf("rollout vectors: %d run (bucket %d, select %d, trust %d, verify %d)", total, ran["bucket"], ran["select"], ran["trust"], ran["verify"])
}
