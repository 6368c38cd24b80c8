package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var vectorDir = filepath.Join("..", "..", "..", "..", "tests", "vectors")

// mutant is the shipped artifact with 408 replaced by 425 in the table of
// retryable statuses (policy-core RETRYABLE_STATUSES, in the data
// section): 408 then falls to the terminal default, as in the mutant
// tests/artifact/mutant builds from source.
func mutant(t *testing.T) []byte {
	t.Helper()
	table := []uint16{408, 425, 429, 500, 502, 503, 504, 507, 509}
	seq := make([]byte, 2*len(table))
	for i, v := range table {
		binary.LittleEndian.PutUint16(seq[2*i:], v)
	}
	a := retrypolicy.EmbeddedArtifact()
	if bytes.Count(a, seq) != 1 {
		t.Skip("the retryable-status table is not in the artifact's data as this test expects (policy-core changed it)")
	}
	at := bytes.Index(a, seq)
	binary.LittleEndian.PutUint16(a[at:], 425)
	return a
}

func TestTheRunnerRunsTheArtifactNamedByTheEnvironment(t *testing.T) {
	if _, err := os.Stat(vectorDir); err != nil {
		t.Skipf("no vectors: %v", err)
	}
	path := filepath.Join(t.TempDir(), "mutant.wasm")
	if err := os.WriteFile(path, mutant(t), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(retrypolicy.EnvArtifact, path)
	t.Setenv(retrypolicy.EnvArtifactSHA256, "")
	var out, errOut bytes.Buffer
	if code := run([]string{vectorDir}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d with the mutant (want 1):\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "FAIL classify.json: status 408:") || !strings.Contains(errOut.String(), "from "+path) {
		t.Fatalf("the status-408 case did not fail, or the runner did not say which artifact it ran:\n%s\n%s", out.String(), errOut.String())
	}
	if strings.Contains(out.String(), "host error") {
		t.Fatalf("a case failed as a host error (a trap, not an answer) on the mutant:\n%s", out.String())
	}
	t.Setenv(retrypolicy.EnvArtifact, "")
	out.Reset()
	if code := run([]string{vectorDir}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "go: 1155 passed, 0 failed") {
		t.Fatalf("the embedded artifact: exit %d\n%s", code, out.String())
	}
}

func TestASetButMissingArtifactFailsTheRunNamingThePath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.wasm")
	t.Setenv(retrypolicy.EnvArtifact, missing)
	var out, errOut bytes.Buffer
	if code := run([]string{vectorDir}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "artifact_unreadable") ||
		!strings.Contains(errOut.String(), missing) {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}
