//! # retry-policy-tools-js
//!
//! The policy team's tools for JavaScript: `tools/policy-tools` (lint,
//! simulate, diff, the schedule and storm charts) compiled with wasm-bindgen
//! into the npm package's `tools` export (`@webhook/retry-policy/tools`,
//! built by `host-examples/node/scripts/build-tools` into `lib/tools/`).
//! Node scripts and the browser playground both use it.
//!
//! **Engine.** The tools ask a decision source for every number (plans,
//! delays, budget verdicts, evaluate / store / settle). The `retry-policy`
//! CLI plugs in the component (`dist/retry_policy.wasm`) through wasmtime;
//! this build plugs in `policy-core` itself (`policy_tools::native`), compiled
//! into the same wasm: a browser cannot run a component, and the component
//! is built from that same `policy-core`. The two give identical numbers:
//! `playground/test/parity.test.mjs` compares this build (in Node and in
//! Chromium) with `retry-policy simulate --format json` on every shipped
//! scenario.
//!
//! Every function takes text (a document or scenario, TOML or JSON by the
//! `path` option's extension) and an options object, and returns plain data
//! shaped exactly like the CLI's `--format json` output (or its text with
//! `format: "text"`). Nothing panics on bad input: every refusal is a thrown
//! `ToolError` with a `code` (see [`errors`]).

mod compare;
mod errors;
mod exports;
mod limits;
mod options;

pub use compare::compare_health;
pub use exports::*;

/// The version of this build (the crate's).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
