//! Format 3's documents through the component (`load-health-document`):
//! each class with its effective `health` section, as the delivery engine's
//! config takes them. Every rule runs in the component; this file only
//! moves values.

use retry_policy_core as core_;
use retry_policy_core::health::{Circuit, Health, Release};

use crate::bindings::wit;
use crate::convert::{from_wit, to_wit};
use crate::engine::{HostError, PolicyInstance};

/// A class of a format-3 document ([`PolicyInstance::load_health_document`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HealthClass {
    pub name: String,
    pub policy: core_::Policy,
    /// Its effective section (its own, else the document's; `None`: format 2).
    pub health: Option<Health>,
    /// FNV-1a 64 over the policy's and the section's words, 16 hex digits.
    pub policy_hash: String,
    /// The words the section adds to the hash (empty without one).
    pub hash_words: Vec<u64>,
}

/// A validated format-3 document: its version and classes, in document order.
#[derive(Clone, Debug, PartialEq)]
pub struct HealthDocument {
    pub version: String,
    pub classes: Vec<HealthClass>,
}

impl HealthDocument {
    /// The format-2 view: the same version and class policies, without the
    /// `health` sections (what format-2 callers such as `admit` take).
    pub fn policy_document(&self) -> wit::PolicyDocument {
        let classes = self
            .classes
            .iter()
            .map(|c| wit::EventClass { name: c.name.clone(), policy: to_wit::policy(&c.policy) })
            .collect();
        wit::PolicyDocument { version: self.version.clone(), classes }
    }

    /// The names of the classes that have a `health` section (their own or
    /// the document's), in document order; empty for format 2.
    pub fn health_classes(&self) -> Vec<String> {
        self.classes.iter().filter(|c| c.health.is_some()).map(|c| c.name.clone()).collect()
    }
}

fn health(s: wit::Health) -> Health {
    Health {
        hold_budget_refusals: s.hold_budget_refusals,
        pause_max_ms: s.pause_max_ms,
        circuit: s.circuit.map(|x| {
            fields!(x => Circuit { failure_ratio, min_sample, cooldown_ms, cooldown_max_ms, probes, probe_interval_ms })
        }),
        release: fields!(s.release => Release { multiple, floor_per_s }),
        cache_ms: s.cache_ms,
    }
}

impl PolicyInstance {
    /// Parse a format-3 document (format 2 with optional `health` sections), in the component.
    pub fn load_health_document(&mut self, json: &str) -> Result<HealthDocument, HostError> {
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_load_health_document(s, json))?;
        let doc = r.map_err(|e| HostError::Policy(from_wit::error(e)))?;
        let classes = doc
            .classes
            .into_iter()
            .map(|c| HealthClass {
                name: c.name,
                policy: from_wit::policy(&c.policy),
                health: c.health.map(health),
                policy_hash: c.policy_hash,
                hash_words: c.hash_words,
            })
            .collect();
        Ok(HealthDocument { version: doc.version, classes })
    }
}
