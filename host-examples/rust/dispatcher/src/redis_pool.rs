//! Connections of the budget store, on the `redis` crate (sync API): one
//! standalone Redis or a Redis Cluster reached through a seed, over plain
//! TCP (`redis://`) or TLS (`rediss://`), with an ACL user when the URL
//! names one (`AUTH user password`). Each [`RedisPool::query`] runs one
//! command within a deadline that bounds connect, TLS handshake, write and
//! read; a connection that saw an I/O error, a timeout or an unreadable
//! reply is dropped, never reused (a late reply must never answer the next
//! command), so the store recovers by itself when Redis comes back.
//!
//! TLS: rustls (the `ring` provider), verifying Redis against the platform's
//! store plus the replica's `--ca-file` ([`TrustRoots`]). The crate takes
//! its roots as one PEM blob that replaces the platform's store, so that
//! blob is both, in PEM. Verification is never skipped: a URL fragment
//! (`#insecure`) is refused.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use redis::cluster::{ClusterClient, ClusterClientBuilder, ClusterConnection};
use redis::{Client, Connection, ConnectionInfo, IntoConnectionInfo, TlsCertificates, Value};

use crate::redis_error::RedisError;
use crate::redis_node::NodeConnection;
use retry_policy_host::tls::TrustRoots;

/// Idle connections kept (enough for every worker thread).
const MAX_IDLE: usize = 64;
/// After a cluster connection could not be set up (seed down, no slot map),
/// calls fail at once until this much time has passed: one attempt a second,
/// not one per store call.
const CLUSTER_RETRY: Duration = Duration::from_secs(1);

const URL_FORM: &str = "the Redis URL must be redis://[user[:password]@]host[:port][/db] or rediss://... (TLS)";

/// What the store talks to.
// One per pool, made once: boxing the cluster fields would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Topology {
    Standalone,
    Cluster {
        client: ClusterClient,
        idle: Mutex<Vec<ClusterConnection<NodeConnection>>>,
        failed_at: Mutex<Option<Instant>>,
    },
}

/// Connections to Redis. Share it between threads. (No `Debug`: the
/// crate's connection info would print the password.)
pub struct RedisPool {
    /// The URL's node (standalone: the Redis; cluster: the seed).
    seed: Client,
    idle: Mutex<Vec<Connection>>,
    topology: Topology,
    timeout: Duration,
}

/// Time left before `deadline`, or a timeout.
fn left(deadline: Instant) -> Result<Duration, RedisError> {
    let d = deadline.saturating_duration_since(Instant::now());
    if d.is_zero() {
        Err(RedisError::Timeout)
    } else {
        Ok(d)
    }
}

/// Parse and check `url` (messages never echo it).
fn connection_info(url: &str) -> Result<(ConnectionInfo, bool), RedisError> {
    let tls = if url.starts_with("rediss://") {
        true
    } else if url.starts_with("redis://") {
        false
    } else {
        return Err(RedisError::Config(URL_FORM.into()));
    };
    if url.contains('#') {
        return Err(RedisError::Config("the Redis URL must not have a #fragment (TLS is always verified)".into()));
    }
    let info = url.into_connection_info().map_err(|_| RedisError::Config(URL_FORM.into()))?;
    Ok((info, tls))
}

impl RedisPool {
    /// A pool for `url` (`cluster`: a seed of a Redis Cluster). Nothing is
    /// connected yet: an unreachable Redis makes calls fail, it does not
    /// stop the dispatcher.
    pub fn new(url: &str, cluster: bool, timeout: Duration, trust: &TrustRoots) -> Result<RedisPool, RedisError> {
        let (info, tls) = connection_info(url)?;
        let certs = tls.then(|| {
            // The crate builds rustls configurations with the process's
            // default provider: make it `ring`, as for https:// targets.
            let _ = rustls::crypto::ring::default_provider().install_default();
            TlsCertificates { client_tls: None, root_cert: Some(trust.pem()) }
        });
        let config = |e: redis::RedisError| RedisError::Config(format!("{URL_FORM} ({:?})", e.kind()));
        let seed = match &certs {
            Some(c) => Client::build_with_tls(info.clone(), c.clone()).map_err(config)?,
            None => Client::open(info.clone()).map_err(config)?,
        };
        let topology = if cluster {
            let mut builder = ClusterClientBuilder::new(vec![info])
                .connection_timeout(timeout)
                .response_timeout(timeout)
                // Redirects only (MOVED, ASK); I/O failures are final
                // (`redis_node`).
                .retries(3);
            if let Some(c) = certs {
                builder = builder.certs(c);
            }
            let client = builder.build().map_err(config)?;
            Topology::Cluster { client, idle: Mutex::new(Vec::new()), failed_at: Mutex::new(None) }
        } else {
            Topology::Standalone
        };
        Ok(RedisPool { seed, idle: Mutex::new(Vec::new()), topology, timeout })
    }

    /// The deadline of a call starting now.
    pub fn deadline(&self) -> Instant {
        Instant::now() + self.timeout
    }

    /// The deadline of a call starting now that may take `min` even when
    /// the store timeout is shorter (a 4 MiB artifact fetch).
    pub fn deadline_at_least(&self, min: Duration) -> Instant {
        Instant::now() + self.timeout.max(min)
    }

    /// One command where its key lives (the cluster client routes it by its
    /// first key), answered before `deadline`.
    pub fn query(&self, cmd: &redis::Cmd, deadline: Instant) -> Result<Value, RedisError> {
        self.exec(deadline, |c| cmd.query::<Value>(c))
    }

    /// A pipeline in one round trip where its first command's key lives
    /// (every key must be in one slot on a cluster), answered before
    /// `deadline`: the replies in order, an error reply as the error. Sent
    /// as packed commands: the crate's cluster connection refuses
    /// `Pipeline::query` but routes packed commands by the first one's key
    /// (and follows `MOVED`/`ASK` for them).
    pub fn pipeline(&self, pipe: &redis::Pipeline, deadline: Instant) -> Result<Value, RedisError> {
        let packed = pipe.get_packed_pipeline();
        self.exec(deadline, |c| {
            let replies = c.req_packed_commands(&packed, 0, pipe.len())?;
            replies.into_iter().map(Value::extract_error).collect::<redis::RedisResult<Vec<_>>>().map(Value::Array)
        })
    }

    /// `run` on a connection to where the keys live, before `deadline`.
    fn exec(
        &self,
        deadline: Instant,
        run: impl FnOnce(&mut dyn redis::ConnectionLike) -> redis::RedisResult<Value>,
    ) -> Result<Value, RedisError> {
        match &self.topology {
            Topology::Standalone => self.exec_on_seed(deadline, run),
            Topology::Cluster { client, idle, failed_at } => {
                let pooled = idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
                let mut conn = match pooled {
                    Some(c) => c,
                    None => {
                        let mut at = failed_at.lock().unwrap_or_else(|p| p.into_inner());
                        if at.is_some_and(|t| t.elapsed() < CLUSTER_RETRY) {
                            return Err(RedisError::Io(
                                "the cluster could not be reached (retried once a second)".into(),
                            ));
                        }
                        client.get_generic_connection::<NodeConnection>().inspect_err(|_| *at = Some(Instant::now()))?
                    }
                };
                let t = left(deadline)?;
                conn.set_read_timeout(Some(t)).and_then(|_| conn.set_write_timeout(Some(t)))?;
                let result = run(&mut conn).map_err(RedisError::from);
                keep(idle, conn, &result);
                result
            }
        }
    }

    /// One command on the URL's own node (standalone store, or questions
    /// to the seed), answered before `deadline`.
    pub fn on_seed(&self, cmd: &redis::Cmd, deadline: Instant) -> Result<Value, RedisError> {
        self.exec_on_seed(deadline, |c| cmd.query::<Value>(c))
    }

    fn exec_on_seed(
        &self,
        deadline: Instant,
        run: impl FnOnce(&mut dyn redis::ConnectionLike) -> redis::RedisResult<Value>,
    ) -> Result<Value, RedisError> {
        let pooled = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => self.seed.get_connection_with_timeout(left(deadline)?)?,
        };
        let t = left(deadline)?;
        conn.set_read_timeout(Some(t)).and_then(|_| conn.set_write_timeout(Some(t)))?;
        let result = run(&mut conn).map_err(RedisError::from);
        keep(&self.idle, conn, &result);
        result
    }
}

/// Back to the idle list, unless the result says the connection is broken.
fn keep<C>(idle: &Mutex<Vec<C>>, conn: C, result: &Result<Value, RedisError>) {
    if result.as_ref().err().is_some_and(RedisError::breaks_connection) {
        return;
    }
    let mut idle = idle.lock().unwrap_or_else(|p| p.into_inner());
    if idle.len() < MAX_IDLE {
        idle.push(conn);
    }
}

#[cfg(test)]
#[path = "tests_redis_pool.rs"]
mod tests;
