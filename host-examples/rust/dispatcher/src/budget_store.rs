//! Where the dispatcher keeps its retry-budget counts: in this process
//! (the default; a budget per replica) or in Redis (one budget for the
//! whole fleet). Either way the store answers the ONE request `evaluate`
//! named for an attempt (`record`, `reserve` or `record_reserve`) in one
//! atomic call; what the answer means is `settle`'s business, never the
//! store's. In-process the rule is the component's `store-apply`; in Redis
//! it is `fleet/budget.lua`, under the component's `store-key`.

use std::time::Duration;

use retry_policy_core::compiled::{CallReply, StoreCall};
use retry_policy_core::{Budget, Reservation, StoreRequest};
use retry_policy_host::PolicyInstance;

use crate::local_store::LocalStore;
use crate::redis_store::RedisStore;
use crate::tls::TrustRoots;

/// Default deadline of one store call.
pub const DEFAULT_STORE_TIMEOUT: Duration = Duration::from_millis(250);

/// The budget store.
// One per process, never moved in a hot loop: boxing the larger variant
// would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum BudgetStore {
    /// Process-local counts (one budget per replica).
    Local(LocalStore),
    /// Fleet-wide counts in Redis.
    Redis(RedisStore),
}

impl BudgetStore {
    /// The in-process default.
    pub fn local() -> Self {
        BudgetStore::Local(LocalStore::new())
    }

    /// Redis at `url` with the default timeout, the skew check on and the
    /// platform's trust store (for `rediss://`).
    pub fn redis(url: &str) -> Result<Self, String> {
        Self::redis_with(url, DEFAULT_STORE_TIMEOUT, true, &TrustRoots::default())
    }

    /// Redis at `url` (`redis://[user[:password]@]host[:port][/db]`, or
    /// `rediss://...` verified against `trust`: the platform's store plus
    /// `--ca-file`); every call ends within `timeout`. A bad URL is an
    /// error that does not echo it.
    pub fn redis_with(url: &str, timeout: Duration, skew_check: bool, trust: &TrustRoots) -> Result<Self, String> {
        Ok(BudgetStore::Redis(RedisStore::new(url, timeout, skew_check, trust).map_err(|e| e.to_string())?))
    }

    /// A Redis Cluster through the seed node `url` (same URL forms).
    pub fn redis_cluster_with(
        url: &str,
        timeout: Duration,
        skew_check: bool,
        trust: &TrustRoots,
    ) -> Result<Self, String> {
        Ok(BudgetStore::Redis(RedisStore::cluster(url, timeout, skew_check, trust).map_err(|e| e.to_string())?))
    }

    /// Redis only: a warning when its eviction policy can drop budget keys.
    pub fn eviction_warning(&self) -> Option<String> {
        match self {
            BudgetStore::Local(_) => None,
            BudgetStore::Redis(r) => r.eviction_warning(),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            BudgetStore::Local(_) => "in-memory",
            BudgetStore::Redis(_) => "redis",
        }
    }

    /// Redis commands so far (0 in-process).
    pub fn round_trips(&self) -> u64 {
        match self {
            BudgetStore::Local(_) => 0,
            BudgetStore::Redis(r) => r.commands(),
        }
    }

    /// The one store call of an attempt. `Err` (with a message for the
    /// log) is a failed call: `settle` gets `unavailable`.
    pub fn call(
        &self,
        policy: &mut PolicyInstance,
        request: &StoreRequest,
        budget: &Budget,
        now_ms: u64,
    ) -> Result<Reservation, String> {
        match self {
            BudgetStore::Local(l) => l.call(policy, request, budget, now_ms).map_err(|e| e.to_string()),
            BudgetStore::Redis(r) => {
                let key = policy.store_key(request).map_err(|e| e.to_string())?;
                r.call(&key, request, budget, now_ms).map_err(|e| e.to_string())
            }
        }
    }

    /// A whole ABI 0.3 `store-call` (formats 2 and 3): in-process the
    /// component's `apply-call`, in Redis one `EVALSHA` of 8 or 18
    /// arguments. `Err` (with a message for the log) is a failed call.
    pub fn call_whole(&self, policy: &mut PolicyInstance, call: &StoreCall, now_ms: u64) -> Result<CallReply, String> {
        match self {
            BudgetStore::Local(l) => l.call_whole(policy, call, now_ms).map_err(|e| e.to_string()),
            BudgetStore::Redis(r) => r.call_whole(call, now_ms).map_err(|e| e.to_string()),
        }
    }
}
