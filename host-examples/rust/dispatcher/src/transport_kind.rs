//! The transport error kinds this dispatcher reports: the closed list of
//! `fleet/transport-kinds.json` (docs/contract.md, "Transport error kinds
//! (what dispatchers report)"), one constant each. Every place that
//! produces a kind uses these names; a test fails when this file and the
//! table differ, or when the policy's `classify_error` gives a kind another
//! class than the table's.

/// The policy's class of a kind, as the table states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Retryable,
    Terminal,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Retryable => "retryable",
            Class::Terminal => "terminal",
        }
    }
}

// The constants and `ALL` are generated from the table
// (fleet/gen-transport-kinds; `--check` in scripts/test fails when stale).
#[path = "transport_kind_table.rs"]
mod table;
pub use table::*;

#[cfg(test)]
#[path = "tests_transport_kind.rs"]
mod tests;
