//! What the dispatcher logs cannot forge lines or leak secrets: the driver
//! writes no target URL of its own, Redis
//! URLs are never echoed ([`crate::redis_pool`] has no `Debug`), signing
//! secrets never print ([`crate::signing::Secret`]'s `Debug`), and every
//! log line goes through [`log_line`].

/// `msg` as one log line: control characters (CR, LF, ESC, ...) in ids or
/// error texts, which a producer or an endpoint may choose, are written as
/// escapes (`\r`, `\n`, `\u{1b}`), so no one can forge a log line or
/// drive a terminal through the dispatcher's log.
pub fn log_line(msg: &str) -> String {
    msg.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

#[cfg(test)]
#[path = "tests_redact.rs"]
mod tests;
