package retrypolicy

import _ "embed"

// coreModule is the main core module of dist/retry_policy.wasm (the
// component every host runs; wazero runs core modules, not components), as
// `witgen core` extracts it: the repository's one component-file reader.
// GENERATED - DO NOT EDIT: regenerate with host-examples/go/generate after
// scripts/build-component; TestTheEmbeddedModuleIsWhatWitgenCoreExtracts
// fails while it is stale.
//
//go:generate sh -c "cd ../../.. && cargo run -q -p witgen -- core dist/retry_policy.wasm host-examples/go/retrypolicy/retry_policy_core.wasm"
//go:generate sh -c "cd ../../.. && cargo run -q -p witgen -- go host-examples/go/retrypolicy"
//go:embed retry_policy_core.wasm
var coreModule []byte

// CoreModule returns a copy of the embedded core module.
func CoreModule() []byte { return append([]byte(nil), coreModule...) }
