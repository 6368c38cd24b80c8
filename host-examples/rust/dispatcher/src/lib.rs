//! # retry-policy-dispatcher
//!
//! A webhook dispatcher on the retry-policy component (through
//! `retry-policy-host`): every decision — retry after how long, or stop and
//! dead-letter with which reason — is the component's, the same artifact
//! the Node, Python and Go dispatchers run.
//!
//! * [`dispatcher::Dispatcher`]: worker threads delivering over HTTP/1.1
//!   ([`http_client`], `ureq`, with [`destination`] checks) to real
//!   endpoints, retrying on the policy's delays: after each attempt
//!   `evaluate`, at most one store call, `settle` (`worker`).
//! * [`store::EventStore`]: every event with the policy and schedule it was
//!   admitted under (`admit`) and its first-attempt instant; in memory plus
//!   an optional journal (docs/journal.md, [`journal`]; formats 1 and 2
//!   read, format 2 written), so another worker, in any language, resumes
//!   an event under its admitted policy without restarting its window.
//! * Format 3 (docs/health-dispatch.md): a class with `health` is gated
//!   before every send (`health_worker`), with a per-endpoint view, pacer
//!   and admissions ([`endpoint_health`]); holds are journaled; dead
//!   letters are replayed ([`replay`]); the five format-3 metric families
//!   ([`metrics_health`]).
//! * [`budget_store::BudgetStore`]: the retry budget, in-process by default
//!   ([`local_store`], the component's `store-apply`) or fleet-wide in Redis
//!   ([`redis_store`] on the `redis` crate: `fleet/budget.lua`, one `EVALSHA`
//!   per store call, a timeout on every call, fails closed; standalone or
//!   Cluster, `rediss://`, ACL users). Both also answer a whole ABI 0.3
//!   `store-call` (`apply-call`; the 18-argument health `EVALSHA`, [`redis_call`]).
//! * [`metrics::Metrics`]: `webhook_deadletter_total{stop_reason}` and
//!   friends on `/metrics` (Prometheus text).
//! * The binary `retry-policy-dispatcher` with commands `replica` (the
//!   fleet tests' REPLICA contract), `demo` (the storm demo), `endpoints`
//!   (local healthy / 503 / 410 endpoints) and `bench`.

pub mod args;
pub mod artifact_reload;
pub mod budget_store;
pub mod cli;
mod compiled_cache;
pub mod destination;
pub mod dispatcher;
pub mod drain;
pub mod endpoint_health;
pub mod endpoints;
mod health_worker;
pub mod http_client;
pub mod http_server;
pub mod journal;
pub mod journal_error;
pub mod journal_lock;
pub mod journal_read;
pub mod journal_record;
pub mod journal_record_v2;
pub mod local_store;
pub mod metrics;
pub mod metrics_health;
pub mod policy_reload;
pub mod redact;
pub mod redis_call;
pub mod redis_error;
mod redis_node;
pub mod redis_pool;
pub mod redis_reply;
pub mod redis_store;
pub mod replay;
pub mod report;
mod shared;
pub mod signing;
pub mod store;
pub mod tls;
pub mod transport_kind;
mod worker;

pub use budget_store::BudgetStore;
pub use dispatcher::{Dispatcher, DispatcherConfig, NewEvent};
pub use metrics::Metrics;
pub use store::{EventRecord, EventStore, Status};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_artifact;
#[cfg(test)]
mod tests_artifact_health;
#[cfg(test)]
mod tests_crash;
#[cfg(test)]
mod tests_drain;
#[cfg(test)]
mod tests_health;
#[cfg(test)]
mod tests_health_util;
#[cfg(test)]
mod tests_health_wake;
#[cfg(test)]
mod tests_hostile;
#[cfg(test)]
mod tests_journal;
#[cfg(test)]
mod tests_redis;
#[cfg(test)]
mod tests_redis_cluster;
#[cfg(test)]
mod tests_redis_health;
#[cfg(test)]
mod tests_redis_server;
#[cfg(test)]
mod tests_reload;
#[cfg(test)]
mod tests_replay;
#[cfg(test)]
mod tests_safety;
#[cfg(test)]
mod tests_tls;
#[cfg(test)]
mod tests_window;
