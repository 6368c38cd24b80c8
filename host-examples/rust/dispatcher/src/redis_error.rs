//! Why a budget-store call failed, as one typed error: every variant is a
//! failed call (the policy fails closed: `budget_unavailable`), and the
//! variant says what became of the connection. Messages never echo the
//! Redis URL (it may carry a password).

use std::fmt;

/// Why a store call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisError {
    /// The URL or the TLS settings are unusable (a configuration error).
    Config(String),
    /// Connect, TLS, write or read failed or ran out of time: the connection
    /// is dropped (a late reply must never answer the next command).
    Io(String),
    /// The call ran out of its deadline (`--store-timeout-ms`).
    Timeout,
    /// Redis answered an error (`NOSCRIPT`, `WRONGPASS`, the script's clock
    /// skew check, ...): the connection is still in step.
    Server(String),
    /// A reply that does not parse, or a script answer of the wrong shape.
    Protocol(String),
}

impl RedisError {
    /// `NOSCRIPT`: the script is not loaded, nothing ran.
    pub fn is_noscript(&self) -> bool {
        matches!(self, RedisError::Server(m) if m.starts_with("NOSCRIPT"))
    }

    /// Whether the connection that saw this error must be dropped.
    pub fn breaks_connection(&self) -> bool {
        matches!(self, RedisError::Io(_) | RedisError::Timeout | RedisError::Protocol(_))
    }
}

/// The first 200 characters of a text, without control characters.
fn clip(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(200).collect()
}

impl fmt::Display for RedisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedisError::Config(m) => write!(f, "redis configuration: {m}"),
            RedisError::Io(m) => write!(f, "redis unreachable: {}", clip(m)),
            RedisError::Timeout => write!(f, "redis: the store call timed out"),
            RedisError::Server(m) => write!(f, "redis error: {}", clip(m)),
            RedisError::Protocol(m) => write!(f, "redis protocol error: {}", clip(m)),
        }
    }
}

impl std::error::Error for RedisError {}

impl From<redis::RedisError> for RedisError {
    fn from(e: redis::RedisError) -> Self {
        use redis::ErrorKind as K;
        // A cluster node's I/O failure, made final by `redis_node`.
        if e.kind() == K::ClientError && e.to_string().contains(crate::redis_node::NOT_RETRIED) {
            return match e.detail() {
                Some(crate::redis_node::TIMED_OUT) => RedisError::Timeout,
                detail => RedisError::Io(detail.unwrap_or_default().to_string()),
            };
        }
        if e.is_timeout() {
            return RedisError::Timeout;
        }
        if e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() {
            return RedisError::Io(e.to_string());
        }
        match e.kind() {
            K::ParseError | K::TypeError => RedisError::Protocol(e.to_string()),
            K::InvalidClientConfig => RedisError::Config(e.to_string()),
            // The server's own words: `CODE detail` as Redis sent them.
            _ => match (e.code(), e.detail()) {
                (Some(code), Some(detail)) => RedisError::Server(format!("{code} {detail}")),
                (Some(code), None) => RedisError::Server(code.to_string()),
                _ => RedisError::Server(e.to_string()),
            },
        }
    }
}

#[cfg(test)]
#[path = "tests_redis_error.rs"]
mod tests;
