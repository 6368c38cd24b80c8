//! # policy-tools
//!
//! What a policy team runs before a policy ships: [`lint`] a document,
//! [`sim`]ulate a storm on a virtual clock, [`diff`] two documents, and draw
//! the schedule and the storm as SVG ([`charts`]).
//!
//! Nothing here computes a schedule, a delay or a budget verdict: lint and
//! diff get every number from a [`DecisionSource`] (the `retry-policy` CLI
//! plugs in the WebAssembly component, tests [`native::NativeEngine`]), and
//! [`sim`] runs each simulated replica as `policy-core`'s delivery engine,
//! the code the component runs, so what it predicts is what dispatchers do.
//! This crate does not link wasmtime, so it builds and tests in seconds.

pub mod charts;
pub mod commands;
pub mod diff;
pub mod engine;
pub mod human;
pub mod lint;
pub mod native;
pub mod sim;
pub mod source;

pub use engine::{DecisionSource, EngineError};
