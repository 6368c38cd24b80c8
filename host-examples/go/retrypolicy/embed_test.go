package retrypolicy

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/embedcore"
)

// The component every host runs; RETRY_POLICY_COMPONENT overrides the path.
func componentPath() string {
	if p := os.Getenv("RETRY_POLICY_COMPONENT"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "..", "dist", "retry_policy.wasm")
}

func TestEmbeddedModuleMatchesTheComponent(t *testing.T) {
	comp, err := os.ReadFile(componentPath())
	if err != nil {
		if os.Getenv("RETRY_POLICY_REQUIRE_DIST") != "" {
			t.Fatalf("%v (run scripts/build-component)", err)
		}
		t.Skipf("%v: no component to compare with (set RETRY_POLICY_REQUIRE_DIST=1 to fail instead)", err)
	}
	module, manifest, err := embedcore.Derive(comp)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(module, coreModule) {
		t.Fatalf("the embedded %s (%d bytes) is not the main core module of %s (%d bytes): "+
			"run `go generate ./retrypolicy` in host-examples/go", embedcore.ModuleFile, len(coreModule), componentPath(), len(module))
	}
	committed, err := os.ReadFile(embedcore.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != manifest {
		t.Fatalf("%s is stale: run `go generate ./retrypolicy`", embedcore.ManifestFile)
	}
}
