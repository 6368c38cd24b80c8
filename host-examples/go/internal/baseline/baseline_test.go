package baseline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/vectors"
)

// The baseline must decide like the component on every decide vector, or
// the benchmark would compare unlike work.
func TestTheBaselineAgreesWithEveryDecideVector(t *testing.T) {
	dir := os.Getenv("RETRY_POLICY_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "tests", "vectors")
	}
	files, err := vectors.LoadDir(dir)
	if err != nil {
		t.Skipf("no vectors: %v", err)
	}
	n := 0
	for _, f := range files {
		for _, c := range f.Cases {
			if c.Op != "decide" {
				continue
			}
			n++
			in, err := vectors.DecodeDecide(c.Input)
			var want map[string]any
			if err := json.Unmarshal(c.Expect, &want); err != nil {
				t.Fatal(err)
			}
			_, wantsError := want["error"]
			if err != nil {
				if !wantsError {
					t.Errorf("%s: decoding: %v", c.Name, err)
				}
				continue
			}
			d, err := DecideWith(in.Policy, in.State, in.Outcome, in.NowMs, in.Counts)
			if wantsError != (err != nil) {
				t.Errorf("%s: error %v, expect %s", c.Name, err, c.Expect)
				continue
			}
			if err != nil {
				continue
			}
			got, _ := json.Marshal(vectors.DecisionJSON(d))
			var have map[string]any
			_ = json.Unmarshal(got, &have)
			if !reflect.DeepEqual(have, want) {
				t.Errorf("%s: got %s, expect %s", c.Name, got, c.Expect)
			}
		}
	}
	if n == 0 {
		t.Fatal("no decide cases")
	}
}
