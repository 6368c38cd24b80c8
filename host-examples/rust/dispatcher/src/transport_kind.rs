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

/// Whether `kind` is one of the table's kinds.
pub fn is_known(kind: &str) -> bool {
    ALL.iter().any(|(k, _)| *k == kind)
}

/// The table's names, in order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ALL.iter().map(|(k, _)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_policy_core::OutcomeClass;

    const TABLE: &str = include_str!("../../../../fleet/transport-kinds.json");

    fn table() -> Vec<(String, String)> {
        let doc: serde_json::Value = serde_json::from_str(TABLE).expect("fleet/transport-kinds.json is JSON");
        doc["kinds"]
            .as_array()
            .expect("a kinds array")
            .iter()
            .map(|k| {
                let name = k["kind"].as_str().expect("a kind").to_string();
                (name, k["class"].as_str().expect("a class").to_string())
            })
            .collect()
    }

    #[test]
    fn the_constants_are_exactly_the_kinds_and_classes_of_fleet_transport_kinds_json() {
        let mine: Vec<(String, String)> = ALL.iter().map(|(k, c)| (k.to_string(), c.as_str().to_string())).collect();
        assert_eq!(mine, table(), "src/transport_kind.rs and fleet/transport-kinds.json differ");
    }

    #[test]
    fn the_policys_classify_error_gives_every_kind_the_tables_class() {
        let mut policy = crate::tests::engine()
            .instantiate(retry_policy_core::SystemClock, retry_policy_core::InMemoryStore::new())
            .expect("an instance of the artifact");
        for (kind, class) in table() {
            let got = policy.classify_error(&kind).expect("classify_error answers");
            let want = if class == "retryable" { OutcomeClass::Retryable } else { OutcomeClass::Terminal };
            assert_eq!(got, want, "classify_error({kind:?})");
        }
    }
}
