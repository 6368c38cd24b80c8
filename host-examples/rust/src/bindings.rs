//! wasmtime bindings generated from `wit/` at compile time.

wasmtime::component::bindgen!({
    world: "retry-policy",
    path: "../../wit",
});

pub use webhook::retry_policy::types as wit;
