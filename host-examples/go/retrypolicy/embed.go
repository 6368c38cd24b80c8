package retrypolicy

import _ "embed"

// coreModule is the main core module of dist/retry_policy.wasm, the
// component every host runs (wazero runs core modules, not components).
// It is GENERATED — DO NOT EDIT: regenerate it with `go generate
// ./retrypolicy` (or host-examples/go/generate) after
// scripts/build-component; TestEmbeddedModuleMatchesTheComponent fails
// while it differs from the module inside dist/retry_policy.wasm.
//
//go:generate go run ../internal/cmd/embedcore -component ../../../dist/retry_policy.wasm -out .
//go:embed retry_policy_core.wasm
var coreModule []byte

// CoreModule returns a copy of the embedded core module.
func CoreModule() []byte { return append([]byte(nil), coreModule...) }
