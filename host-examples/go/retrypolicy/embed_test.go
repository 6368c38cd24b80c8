package retrypolicy

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// repoRoot is the repository root (this package is host-examples/go/retrypolicy).
func repoRoot() string { return filepath.Join("..", "..", "..") }

// embeddedCore is the embedded artifact's main core module.
func embeddedCore(tb testing.TB) []byte {
	tb.Helper()
	core, err := MainModule(embeddedArtifact)
	if err != nil {
		tb.Fatal(err)
	}
	return core
}

// witgen runs the repository's generator (`cargo run -q -p witgen -- args`),
// skipping the test when cargo is missing unless RETRY_POLICY_REQUIRE_DIST is set.
func witgen(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	if _, err := exec.LookPath("cargo"); err != nil {
		if os.Getenv("RETRY_POLICY_REQUIRE_DIST") != "" {
			t.Fatal("cargo is not installed: cannot run tools/witgen")
		}
		t.Skip("cargo is not installed: tools/witgen cannot run (set RETRY_POLICY_REQUIRE_DIST=1 to fail instead)")
	}
	cmd := exec.Command("cargo", append([]string{"run", "-q", "-p", "witgen", "--"}, args...)...)
	cmd.Dir = repoRoot()
	return cmd.CombinedOutput()
}

func TestTheEmbeddedArtifactIsTheOneInDist(t *testing.T) {
	dist, err := os.ReadFile(filepath.Join(repoRoot(), "dist", "retry_policy.wasm"))
	if err != nil {
		if os.Getenv("RETRY_POLICY_REQUIRE_DIST") != "" {
			t.Fatalf("%v (run scripts/build-component)", err)
		}
		t.Skipf("%v: no artifact to compare with", err)
	}
	if !bytes.Equal(dist, embeddedArtifact) {
		t.Fatalf("retrypolicy/retry_policy.wasm (%d bytes) differs from dist/retry_policy.wasm (%d bytes): run scripts/build-component, which writes both",
			len(embeddedArtifact), len(dist))
	}
}

func TestTheEmbeddedArtifactsMainModuleIsWhatWitgenCoreExtracts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "core.wasm")
	in := filepath.Join(t.TempDir(), "component.wasm")
	if err := os.WriteFile(in, embeddedArtifact, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := witgen(t, "core", in, out); err != nil {
		t.Fatalf("witgen core: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := embeddedCore(t); !bytes.Equal(want, got) {
		t.Fatalf("this package's reader finds a main module of %d bytes; `witgen core` (wasmparser) finds %d bytes", len(got), len(want))
	}
}

func TestTheGeneratedBindingsAreWhatWitgenGeneratesFromTheWIT(t *testing.T) {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := witgen(t, "check", "go", dir)
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		t.Fatalf("zz_generated_*.go are stale:\n%s\nrun host-examples/go/generate", msg)
	default:
		t.Fatalf("could not run `witgen check go` (%v):\n%s", err, msg)
	}
}

func TestEveryGeneratedGoFileCarriesTheLineGoToolsLookFor(t *testing.T) {
	generated := regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)
	files, err := filepath.Glob("zz_generated_*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no zz_generated_*.go files (%v)", err)
	}
	for _, f := range append(files, filepath.Join("..", "redisbudget", "budget_lua.go")) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pkg := bytes.Index(text, []byte("\npackage "))
		if pkg < 0 || !generated.Match(text[:pkg]) {
			t.Errorf("%s: no `// Code generated ... DO NOT EDIT.` line before the package clause", f)
		}
	}
}
