//! A worker's compiled policies (ABI 0.3 handles) for format-3 events, by
//! policy hash: one `compile` per policy and instance, bounded. A handle
//! lives in the instance that compiled it: after a trap or an artifact swap
//! replaced the instance, the component refuses it (`invalid_input` at
//! `handle`), and [`CompiledCache::run`] compiles again once.

use std::collections::HashMap;

use retry_policy_core::health::Health;
use retry_policy_core::Policy;
use retry_policy_host::{CompiledPolicy, HostError, PolicyInstance};

/// Most policies a worker keeps compiled (past it the cache starts again).
pub const COMPILED_MAX: usize = 64;

#[derive(Default)]
pub struct CompiledCache {
    by_hash: HashMap<String, CompiledPolicy>,
}

fn stale(e: &HostError) -> bool {
    match e {
        HostError::Trap(_) => true,
        HostError::Policy(p) => p.field == "handle",
        _ => false,
    }
}

impl CompiledCache {
    fn get(
        &mut self,
        inst: &mut PolicyInstance,
        hash: &str,
        policy: &Policy,
        health: Option<&Health>,
    ) -> Result<&CompiledPolicy, HostError> {
        if !self.by_hash.contains_key(hash) {
            if self.by_hash.len() >= COMPILED_MAX {
                self.by_hash.clear();
            }
            let c = inst.compile(policy, health)?;
            self.by_hash.insert(hash.to_string(), c);
        }
        self.by_hash.get(hash).ok_or_else(|| HostError::Load("compiled policy missing".into()))
    }

    /// Run `f` with the compiled policy of (`hash`, `policy`, `health`); a
    /// trap or a handle of a replaced instance compiles again and runs `f`
    /// once more (every function it calls is pure).
    pub fn run<T>(
        &mut self,
        inst: &mut PolicyInstance,
        hash: &str,
        policy: &Policy,
        health: Option<&Health>,
        mut f: impl FnMut(&mut PolicyInstance, &CompiledPolicy) -> Result<T, HostError>,
    ) -> Result<T, HostError> {
        let first = match self.get(inst, hash, policy, health) {
            Ok(c) => f(inst, c),
            Err(e) => Err(e),
        };
        match first {
            Err(e) if stale(&e) => {
                self.by_hash.clear();
                let c = self.get(inst, hash, policy, health)?;
                f(inst, c)
            }
            r => r,
        }
    }
}
