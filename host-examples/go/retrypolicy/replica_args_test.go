package retrypolicy

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every case of tests/vectors-cli/replica-args.json through ReplicaArgs on
// the artifact: "exact" is the whole answer, "expect" some of its members,
// "error" the refusal's one line (an *ArgsError).
func TestEveryReplicaArgsVectorPassesThroughTheArtifact(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "tests", "vectors-cli", "replica-args.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Format string `json:"format"`
		Cases  []struct {
			Name    string          `json:"name"`
			Request json.RawMessage `json:"request"`
			Exact   map[string]any  `json:"exact"`
			Expect  map[string]any  `json:"expect"`
			Error   *string         `json:"error"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Format != "webhook-retry-policy/replica-args 1" || len(doc.Cases) < 50 {
		t.Fatalf("format %q, %d cases, %v", doc.Format, len(doc.Cases), err)
	}
	ctx := context.Background()
	e, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	for _, c := range doc.Cases {
		text, err := e.ReplicaArgs(ctx, string(c.Request))
		var refused *ArgsError
		switch {
		case c.Error != nil:
			if !errors.As(err, &refused) || refused.Line != *c.Error {
				t.Errorf("%s: got %q, %v; want the refusal %q", c.Name, text, err, *c.Error)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Errorf("%s: the answer %q: %v", c.Name, text, err)
			continue
		}
		if c.Exact != nil && !reflect.DeepEqual(got, c.Exact) {
			t.Errorf("%s: got %v, want %v", c.Name, got, c.Exact)
		}
		for k, want := range c.Expect {
			if !reflect.DeepEqual(got[k], want) {
				t.Errorf("%s: %s: got %v, want %v", c.Name, k, got[k], want)
			}
		}
	}
}

// A request that is not JSON is the request's own fault, still a refusal
// (one line), and the instance goes on answering.
func TestABrokenReplicaArgsRequestIsARefusalAndTheEngineGoesOn(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	var refused *ArgsError
	if _, err := e.ReplicaArgs(ctx, "{"); !errors.As(err, &refused) || !strings.HasPrefix(refused.Line, "replica-args request: ") {
		t.Fatalf("got %v; want an *ArgsError on the request", err)
	}
	text, err := e.ReplicaArgs(ctx, `{"command":"replay","args":["--help"]}`)
	if err != nil || text != `{"command":"help"}` {
		t.Fatalf("then %q, %v", text, err)
	}
}
