//! # policy-tools
//!
//! What a policy team runs before a policy ships: [`lint`] a document,
//! [`sim`]ulate a storm on a virtual clock, [`diff`] two documents, and draw
//! the schedule and the storm as SVG ([`charts`]).
//!
//! Nothing here computes a schedule, a delay or a budget verdict: lint and
//! diff get their numbers from a [`DecisionSource`] (plans, documents) and,
//! for the two rules ABI 1.0 no longer exports (`delay`'s ceilings and
//! `budget-allows`), from `policy-core` itself ([`engine::ceilings`],
//! [`engine::budget_allows`]: the code the component runs). The
//! `retry-policy` CLI plugs in the WebAssembly component (the artifact every
//! dispatcher runs); tests plug in [`native::NativeEngine`] (`policy-core`
//! itself), and a CLI test checks both give identical results. [`sim`] runs
//! each simulated replica as `policy-core`'s delivery engine, the code the
//! component runs, so what it predicts is what dispatchers do.
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
