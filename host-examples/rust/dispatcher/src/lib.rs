//! # retry-policy-dispatcher
//!
//! A webhook dispatcher driving the delivery engine (docs/engine.md) in the
//! retry-policy component (through `retry-policy-host`,
//! `PolicyInstance::engine_*`): the engine decides everything — due events,
//! attempts, retries, gates, probes, holds, store calls, dead letters,
//! replay, drain and every journal line — the same artifact the Node,
//! Python and Go dispatchers run. This crate only moves bytes and time:
//!
//! * [`driver`]: the loop — admissions, one `engine-feed` per batch of
//!   inputs, the actions performed in order (journal lines synced before a
//!   batch's sends), timers;
//! * [`http_client`]: HTTP/1.1 delivery (`ureq`, HTTPS with `retry_policy_host::tls`,
//!   [`destination`] checks, transport-kind mapping), [`signing`];
//! * [`redis_store`]: `fleet/budget.lua` in Redis (standalone or Cluster,
//!   `rediss://`, ACL users, `NOSCRIPT` fallback, a timeout on every call);
//!   without Redis the engine keeps the budget in memory;
//! * [`journal_file`]: the journal's file I/O (lock, append, fsync,
//!   truncate, read);
//! * [`metrics`]: `/metrics` (Prometheus text), counters moved only by the
//!   engine's deltas;
//! * the binary `retry-policy-dispatcher` with commands `replica` (the
//!   REPLICA program), `demo` (the storm demo), `endpoints` (local test
//!   endpoints), `bench` and `replay`.

pub mod args;
pub mod artifact_reload;
pub mod cli;
pub mod clock;
pub mod destination;
pub mod drain;
pub mod driver;
pub mod endpoints;
pub mod http_client;
pub mod http_server;
pub mod journal_error;
pub mod journal_file;
pub mod journal_lock;
pub mod metrics;
pub mod redact;
pub mod redis_error;
mod redis_node;
pub mod redis_pool;
pub mod redis_store;
pub mod replica_args;
pub mod rollout_follow;
pub mod signing;
pub mod transport_kind;

pub use metrics::Metrics;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_capacity;
#[cfg(test)]
mod tests_drain;
#[cfg(test)]
mod tests_hostile;
#[cfg(test)]
mod tests_redis;
#[cfg(test)]
mod tests_redis_cluster;
#[cfg(test)]
mod tests_redis_health;
#[cfg(test)]
mod tests_redis_server;
#[cfg(test)]
mod tests_rollout;
#[cfg(test)]
mod tests_safety;
#[cfg(test)]
mod tests_swap;
#[cfg(test)]
mod tests_tls;
#[cfg(test)]
mod tests_window;
