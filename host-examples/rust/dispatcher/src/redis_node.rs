//! The connection to one Redis Cluster node, as the `redis` crate's cluster
//! client uses it, with ONE change: an I/O error, a timeout or an unreadable
//! reply is handed back as an error the crate does not retry.
//!
//! Why: the crate's sync `ClusterConnection` re-sends a command after such
//! an error (a timeout is "retry immediately", a reset is "reconnect and
//! retry"). For the budget script that is wrong twice over: a command that
//! timed out may still run (a hung Redis runs it when it wakes), so a re-send
//! can count an attempt twice; and each re-send waits the store timeout
//! again, so a hung node would stall a call for a multiple of
//! `--store-timeout-ms`. `MOVED` and `ASK` are server replies, not I/O
//! errors: the crate still follows them. The store drops the whole cluster
//! connection after such an error ([`crate::redis_store`]); the next call
//! opens a new one from the seed (fresh slot map).
//!
//! Plugged in through `ClusterClient::get_generic_connection` (public but
//! doc-hidden in redis 0.32, which the dependency is held to).

use std::time::Duration;

use redis::cluster::Connect;
use redis::{Connection, ConnectionLike, ErrorKind, IntoConnectionInfo, RedisResult, Value};

/// The marker of an I/O failure handed back as not retryable.
pub const NOT_RETRIED: &str = "store connection failed (not retried)";
/// Its detail when the failure was a timeout.
pub const TIMED_OUT: &str = "timed out";

/// A cluster node connection whose I/O failures are final.
pub struct NodeConnection(Connection);

/// An error the crate would retry (I/O, timeout, bad reply) as one it does not.
fn final_error(e: redis::RedisError) -> redis::RedisError {
    let retried = e.is_io_error() || e.is_timeout() || e.kind() == ErrorKind::ParseError;
    if !retried {
        return e;
    }
    let detail = if e.is_timeout() { TIMED_OUT.to_string() } else { e.to_string() };
    redis::RedisError::from((ErrorKind::ClientError, NOT_RETRIED, detail))
}

impl ConnectionLike for NodeConnection {
    fn req_packed_command(&mut self, cmd: &[u8]) -> RedisResult<Value> {
        self.0.req_packed_command(cmd).map_err(final_error)
    }

    fn req_packed_commands(&mut self, cmd: &[u8], offset: usize, count: usize) -> RedisResult<Vec<Value>> {
        self.0.req_packed_commands(cmd, offset, count).map_err(final_error)
    }

    fn get_db(&self) -> i64 {
        self.0.get_db()
    }

    fn check_connection(&mut self) -> bool {
        self.0.check_connection()
    }

    fn is_open(&self) -> bool {
        self.0.is_open()
    }
}

impl Connect for NodeConnection {
    fn connect<T: IntoConnectionInfo>(info: T, timeout: Option<Duration>) -> RedisResult<Self> {
        <Connection as Connect>::connect(info, timeout).map(NodeConnection).map_err(final_error)
    }

    fn send_packed_command(&mut self, cmd: &[u8]) -> RedisResult<()> {
        self.0.send_packed_command(cmd).map_err(final_error)
    }

    fn set_write_timeout(&self, dur: Option<Duration>) -> RedisResult<()> {
        self.0.set_write_timeout(dur)
    }

    fn set_read_timeout(&self, dur: Option<Duration>) -> RedisResult<()> {
        self.0.set_read_timeout(dur)
    }

    fn recv_response(&mut self) -> RedisResult<Value> {
        self.0.recv_response().map_err(final_error)
    }
}

#[cfg(test)]
#[path = "tests_redis_node.rs"]
mod tests;
