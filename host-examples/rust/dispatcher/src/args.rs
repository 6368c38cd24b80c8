//! The flags of the `demo`, `endpoints` and `bench` command lines (parsed
//! by clap in [`crate::cli`]), read as typed values with errors naming the
//! flag. (`replica` and `replay` are read by [`crate::replica_args`].)

use std::collections::HashMap;
use std::str::FromStr;

/// Parsed flags.
#[derive(Debug, Default)]
pub struct Flags {
    values: HashMap<String, String>,
    switches: Vec<String>,
}

impl Flags {
    /// The flags given: (long name, value) pairs and switches (parsed by
    /// clap, [`crate::cli`]).
    pub fn from_parts(values: Vec<(String, String)>, switches: Vec<String>) -> Flags {
        Flags { values: values.into_iter().collect(), switches }
    }

    pub fn has(&self, switch: &str) -> bool {
        self.switches.iter().any(|s| s == switch)
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// A typed value; `what` describes the expected form in the error.
    pub fn get<T: FromStr>(&self, name: &str, what: &str) -> Result<Option<T>, String> {
        match self.str(name) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| format!("--{name} must be {what}, not `{v}`")),
        }
    }

    /// A `HOST:PORT` to listen on (`--metrics-addr`), checked before
    /// anything starts: PORT is 0 to 65535 (0: any free port), an IPv6 HOST
    /// is in brackets, an empty HOST is 127.0.0.1 (loopback unless a host
    /// is named). Returns the address to bind.
    pub fn host_port(&self, name: &str) -> Result<Option<String>, String> {
        let Some(text) = self.str(name) else { return Ok(None) };
        let bad = || format!("--{name} must be HOST:PORT (port 0 to 65535, [IPv6]:PORT), not `{text}`");
        let (host, port) = text.rsplit_once(':').ok_or_else(bad)?;
        let host_ok = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            Some(inner) => !inner.is_empty() && !inner.contains(['[', ']']),
            None => !host.contains([':', '[', ']']),
        };
        if !host_ok || port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) || port.parse::<u16>().is_err() {
            return Err(bad());
        }
        Ok(Some(if host.is_empty() { format!("127.0.0.1:{port}") } else { text.to_string() }))
    }
}

#[cfg(test)]
#[path = "tests_args.rs"]
mod tests;
