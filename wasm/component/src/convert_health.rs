//! Conversions of the format-3 WIT types (`load-health-document`'s answer).
//! Pure field mapping: no policy logic lives here.

pub mod to_wit {
    use alloc::vec::Vec;

    use crate::convert::to_wit as t2;
    use crate::wit;
    use retry_policy_core::compiled as k;
    use retry_policy_core::health as h;

    pub fn circuit(x: h::Circuit) -> wit::Circuit {
        wit::Circuit {
            failure_ratio: x.failure_ratio,
            min_sample: x.min_sample,
            cooldown_ms: x.cooldown_ms,
            cooldown_max_ms: x.cooldown_max_ms,
            probes: x.probes,
            probe_interval_ms: x.probe_interval_ms,
        }
    }

    pub fn health(s: h::Health) -> wit::Health {
        wit::Health {
            hold_budget_refusals: s.hold_budget_refusals,
            pause_max_ms: s.pause_max_ms,
            circuit: s.circuit.map(circuit),
            release: wit::Release { multiple: s.release.multiple, floor_per_s: s.release.floor_per_s },
            cache_ms: s.cache_ms,
        }
    }

    pub fn document(d: h::HealthDocument) -> wit::HealthDocument {
        let h::HealthDocument { document, health: sections } = d;
        let mut classes = Vec::with_capacity(document.classes.len());
        for ((name, p), (_, s)) in document.classes.into_iter().zip(sections) {
            let hash = k::policy_hash_hex(&p, s.as_ref());
            let hash_words = s.as_ref().map(|x| x.hash_words()).unwrap_or_default();
            classes.push(wit::HealthClass {
                name,
                policy: t2::policy(p),
                health: s.map(health),
                policy_hash: hash,
                hash_words,
            });
        }
        wit::HealthDocument { version: document.version, classes }
    }
}
