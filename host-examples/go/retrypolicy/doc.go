// Package retrypolicy runs the webhook retry policy — the one WebAssembly
// artifact every host (Rust, Node, Python, Go) embeds — on wazero, in pure
// Go, so a Go dispatcher makes the same decision about every failed
// delivery as every other host: deliver, retry after how long, or stop and
// dead-letter with which reason.
//
// The package embeds the main core module of dist/retry_policy.wasm (the
// component) byte for byte, and speaks the component model's canonical ABI
// to it by hand for the WIT world webhook:retry-policy/retry-policy@0.1.0:
// the exports of interface `policy` are Engine's methods, and the imports
// `clock` and `budget-counter` call the Clock and BudgetCounter given to New.
//
// Semantics are the contract's (SPEC.md, tests/vectors): this package adds
// none. Refused inputs are *PolicyError values carrying the SPEC code and
// the field path; a guest trap is a *TrapError, never a panic.
//
// An Engine compiles the module once and pools instances; it is safe for
// concurrent use by any number of goroutines (see Engine).
package retrypolicy
