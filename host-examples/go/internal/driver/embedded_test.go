package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// artifactEmbedding writes the shipped artifact with doc appended as its
// embedded document (custom section webhook-retry-policy:document).
func artifactEmbedding(t *testing.T, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "retry_policy.wasm")
	raw := rp.AppendCustomSection(rp.EmbeddedArtifact(), "webhook-retry-policy:document", []byte(doc))
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAReplicaWithoutPolicyRunsTheEmbeddedDocumentsHealthSectionAndHoldsDuringARetryAfterPause(t *testing.T) {
	e, url := newPauseEndpoint(t, true)
	s, stderr, code := runReplica(t, "--target", url, "--endpoint-id", "ep-embedded", "--events", "6", "--concurrency", "2",
		"--artifact", artifactEmbedding(t, healthPolicy), "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.StopReasons["delivered"] != 6 || s.Holds["paused"] < 1 {
		t.Fatalf("want 6 delivered through a paused hold (the embedded health section): %+v", s)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.early) != 0 {
		t.Fatalf("requests %v after the first, inside the 2 s Retry-After pause", e.early)
	}
}

func TestAReplicaOnAFormatTwoEmbeddedDocumentMakesNoHold(t *testing.T) {
	formatTwo := strings.Replace(healthPolicy, `,
  "health": {}`, "", 1)
	if formatTwo == healthPolicy {
		t.Fatal("the test's format-2 document still has its health section")
	}
	_, url := newPauseEndpoint(t, true)
	s, stderr, code := runReplica(t, "--target", url, "--endpoint-id", "ep-embedded-2", "--events", "6", "--concurrency", "2",
		"--artifact", artifactEmbedding(t, formatTwo), "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	for reason, n := range s.Holds {
		if n != 0 {
			t.Fatalf("holds[%s] = %d on a format-2 embedded document: %+v", reason, n, s)
		}
	}
	if s.Events != 6 {
		t.Fatalf("want 6 events: %+v", s)
	}
}
