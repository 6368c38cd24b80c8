package retrypolicy

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repoRoot is the repository root (this package is host-examples/go/retrypolicy).
func repoRoot() string { return filepath.Join("..", "..", "..") }

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

func TestTheEmbeddedModuleIsWhatWitgenCoreExtracts(t *testing.T) {
	component := filepath.Join(repoRoot(), "dist", "retry_policy.wasm")
	if _, err := os.Stat(component); err != nil {
		if os.Getenv("RETRY_POLICY_REQUIRE_DIST") != "" {
			t.Fatalf("%v (run scripts/build-component)", err)
		}
		t.Skipf("%v: no component to compare with", err)
	}
	out := filepath.Join(t.TempDir(), "core.wasm")
	abs, _ := filepath.Abs(component)
	if msg, err := witgen(t, "core", abs, out); err != nil {
		t.Fatalf("witgen core: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, coreModule) {
		t.Fatalf("the embedded retry_policy_core.wasm (%d bytes) is not what `witgen core %s` extracts (%d bytes): run host-examples/go/generate",
			len(coreModule), component, len(want))
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
