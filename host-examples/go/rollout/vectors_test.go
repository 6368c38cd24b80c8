package rollout_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The groups of tests/vectors-rollout/rollout.json and their number of
// cases: a runner that skips one cannot pass (regenerating the vectors
// with more cases means updating these).
var groups = []struct {
	name  string
	cases int
}{{"bucket", 11}, {"select", 51}, {"trust", 8}, {"verify", 17}}

// Every case runs inside the artifact (vector-case, format
// "rollout/<group>"), Wycheproof style: an unknown group is a broken file,
// a failing case is named.
func TestEveryRolloutVectorPassesInsideTheArtifactAndNoneIsSkipped(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "tests", "vectors-rollout", "rollout.json"))
	if err != nil {
		t.Fatalf("tests/vectors-rollout/rollout.json: %v", err)
	}
	var doc struct {
		About               string
		SignedMessagePrefix string `json:"signed_message_prefix"`
		Bucket, Select      []json.RawMessage
		Trust, Verify       []json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("rollout.json: %v", err)
	}
	byGroup := map[string][]json.RawMessage{"bucket": doc.Bucket, "select": doc.Select, "trust": doc.Trust, "verify": doc.Verify}
	e := engine(t)
	total := 0
	for _, g := range groups {
		ran := 0
		for i, c := range byGroup[g.name] {
			var named struct{ Name string }
			if json.Unmarshal(c, &named) != nil || named.Name == "" {
				named.Name = fmt.Sprintf("#%d", i)
			}
			err := e.VectorCase(ctx, `"rollout/`+g.name+`"`, string(c))
			var failed *rp.CaseFailure
			switch {
			case errors.As(err, &failed):
				t.Errorf("%s case %q: %s", g.name, named.Name, failed.Message)
			case err != nil:
				t.Fatalf("%s case %q: the call: %v", g.name, named.Name, err)
			}
			ran++
		}
		if ran != g.cases {
			t.Errorf("%s: ran %d cases, want %d", g.name, ran, g.cases)
		}
		total += ran
	}
	t.Logf("rollout vectors: %d run inside the artifact", total)
}
