//! The default step's compiled policies: one handle per policy value and
//! instance, compiled on first use ([`PolicyInstance::step`] runs through
//! it). Bounded: past [`STEP_CACHE_MAX`] policies the cache starts again
//! (the dropped handles are discarded at the next compile). A trap or an
//! artifact swap replaces the instance, and with it this cache.

use std::collections::HashMap;

use retry_policy_core as core_;

use crate::compiled::CompiledPolicy;
use crate::engine::{HostError, PolicyInstance};

/// Most policies one instance keeps compiled for the default step.
pub const STEP_CACHE_MAX: usize = 64;

/// A policy's value, exactly (floats by their bits).
type PolicyKey = [u64; 10];

fn key(p: &core_::Policy) -> PolicyKey {
    let (b, g) = (&p.backoff, &p.budget);
    [
        b.base_ms,
        b.factor.to_bits(),
        b.cap_ms,
        b.jitter as u64,
        p.window_ms,
        u64::from(p.hard_cap),
        g.ratio.to_bits(),
        g.window_ms,
        g.min_sample,
        u64::from(g.sliding),
    ]
}

#[derive(Default, Debug)]
pub(crate) struct StepCache {
    compiled: HashMap<PolicyKey, CompiledPolicy>,
    /// The last policy stepped and its handle (most steps repeat it).
    last: Option<(PolicyKey, u32)>,
}

impl StepCache {
    pub(crate) fn clear(&mut self) {
        self.compiled.clear();
        self.last = None;
    }

    pub(crate) fn len(&self) -> usize {
        self.compiled.len()
    }
}

impl PolicyInstance {
    /// The handle of `policy` (format 2, no `health`) in this instance,
    /// compiled on first use.
    pub(crate) fn step_handle(&mut self, policy: &core_::Policy) -> Result<u32, HostError> {
        let k = key(policy);
        if let Some((last, handle)) = self.step_cache.last {
            if last == k {
                return Ok(handle);
            }
        }
        if let Some(c) = self.step_cache.compiled.get(&k) {
            self.step_cache.last = Some((k, c.handle()));
            return Ok(c.handle());
        }
        if self.step_cache.compiled.len() >= STEP_CACHE_MAX {
            self.step_cache.clear();
        }
        let c = self.compile(policy, None)?;
        let handle = c.handle();
        self.step_cache.compiled.insert(k, c);
        self.step_cache.last = Some((k, handle));
        Ok(handle)
    }

    /// How many policies the default step holds compiled in this instance.
    pub fn step_policies_compiled(&self) -> usize {
        self.step_cache.len()
    }
}
