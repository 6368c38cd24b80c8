// Package retrypolicy runs the webhook retry policy — the one WebAssembly
// component every host (Rust, Node, Python, Go) runs, dist/retry_policy.wasm
// — on wazero, in pure Go (no cgo), so a Go dispatcher makes the same
// decision about every failed delivery as every other host: deliver, retry
// after how long, or stop and dead-letter with which reason.
//
// The artifact is read at run time (docs/artifact.md): the bytes or path
// given to New (WithArtifact, WithArtifactPath), else the file named by
// RETRY_POLICY_ARTIFACT, else the copy embedded in this package
// (retry_policy.wasm, byte-identical to dist/). wazero runs core modules,
// not components, so the package reads the component container itself
// (container.go: the top-level sections, the two custom sections it knows,
// the main core module), checks it (sha256 pin, ABI, self-test, embedded
// document) and compiles that module. SwapArtifact and WatchArtifact
// replace it without a restart.
//
// It speaks the component model's canonical ABI to the module for the
// WIT world webhook:retry-policy/retry-policy@1.0.0 (ABI 1.0) through generated
// glue (zz_generated_*.go, from wit/ by tools/witgen): the exports of
// interface `policy` are Engine's methods, and the imports `clock` and
// `budget-store` call the Clock and BudgetStore given to New. The
// hand-kept parts are the small ABI runtime (abi_runtime.go), the engine
// and its pools, the artifact reader and loader, and the stores.
//
// Semantics are the contract's (docs/contract.md, tests/vectors): this
// package adds none. Refused inputs are *PolicyError values carrying the
// contract's code and the field path; a guest trap is a *TrapError, a
// refused artifact an *ArtifactError; never a panic.
//
// The delivery engine (OpenDeliveryEngine, docs/engine.md) is what a
// dispatcher drives: it decides every step of every event, and the host
// performs its actions. Beside it: Plan, classification, ParseRetryAfter,
// LoadDocument and LoadHealthDocument, Admit, the one per-attempt step
// (Evaluate, the store's one call, Settle: Engine.Step; or Decide through
// the imported clock and store), ReadTarget and DestinationRefusal, and
// the fleet rollout's follower (RolloutOpen, RolloutStep; package rollout
// drives it), and the REPLICA command line judged (ReplicaArgs, with the
// GENERATED ReplicaUsage, ReplayUsage and ReplicaFlagNames).
//
// An Engine compiles the module once and pools instances; it is safe for
// concurrent use by any number of goroutines (see Engine).
package retrypolicy

//go:generate sh -c "cd ../../.. && cargo run -q -p witgen -- go host-examples/go/retrypolicy"
