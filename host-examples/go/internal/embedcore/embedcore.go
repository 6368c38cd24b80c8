// Package embedcore derives the files the retrypolicy package embeds from
// the component: the main core module, byte for byte, and a manifest that
// says where it came from. Used by the generator (internal/cmd/embedcore)
// and by the test that fails when the committed files are stale.
package embedcore

import (
	"crypto/sha256"
	"fmt"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/component"
)

// File names inside the retrypolicy package.
const (
	ModuleFile   = "retry_policy_core.wasm"
	ManifestFile = "retry_policy_core.wasm.txt"
)

// MainExports identify the policy's main core module among the component's
// core modules (the others are small shims).
var MainExports = []string{"webhook:retry-policy/policy@0.1.0#decide-with", "cabi_realloc"}

// Derive returns the main core module of a component and the manifest text.
func Derive(componentBytes []byte) (module []byte, manifest string, err error) {
	module, err = component.MainModule(componentBytes, MainExports...)
	if err != nil {
		return nil, "", err
	}
	manifest = fmt.Sprintf(`GENERATED — DO NOT EDIT.
%s is the main core module of dist/retry_policy.wasm (the component
every host runs), copied byte for byte; wazero runs core modules, not
components. Regenerate after scripts/build-component with
  cd host-examples/go && go generate ./retrypolicy
(or host-examples/go/generate). The test
TestEmbeddedModuleMatchesTheComponent fails while it is stale.

component sha256:   %x
component bytes:    %d
core module sha256: %x
core module bytes:  %d
`, ModuleFile, sha256.Sum256(componentBytes), len(componentBytes), sha256.Sum256(module), len(module))
	return module, manifest, nil
}
