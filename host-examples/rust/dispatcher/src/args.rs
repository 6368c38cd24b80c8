//! `--flag value` command lines for the binaries, with clear errors.

use std::collections::HashMap;
use std::str::FromStr;

/// Parsed flags.
#[derive(Debug, Default)]
pub struct Flags {
    values: HashMap<String, String>,
    switches: Vec<String>,
}

impl Flags {
    /// `known` lists value flags, `switches` flags without a value; anything
    /// else is an error naming it.
    pub fn parse(args: &[String], known: &[&str], switches: &[&str]) -> Result<Flags, String> {
        let mut f = Flags::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let name = a.strip_prefix("--").ok_or_else(|| format!("unexpected argument `{a}`"))?;
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (name, None),
            };
            if switches.contains(&name) && inline.is_none() {
                f.switches.push(name.to_string());
            } else if known.contains(&name) {
                let v = match inline {
                    Some(v) => v,
                    None => it.next().cloned().ok_or_else(|| format!("--{name} needs a value"))?,
                };
                if f.values.insert(name.to_string(), v).is_some() {
                    return Err(format!("--{name} given twice"));
                }
            } else {
                return Err(format!("unknown flag --{name}"));
            }
        }
        Ok(f)
    }

    pub fn has(&self, switch: &str) -> bool {
        self.switches.iter().any(|s| s == switch)
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn required(&self, name: &str) -> Result<&str, String> {
        self.str(name).ok_or_else(|| format!("--{name} is required"))
    }

    /// A typed value; `what` describes the expected form in the error.
    pub fn get<T: FromStr>(&self, name: &str, what: &str) -> Result<Option<T>, String> {
        match self.str(name) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| format!("--{name} must be {what}, not `{v}`")),
        }
    }

    /// A whole number of milliseconds, at least 1 (`--watch-artifact-ms`).
    pub fn positive_ms(&self, name: &str) -> Result<Option<u64>, String> {
        match self.get::<u64>(name, "a whole number of milliseconds (at least 1)")? {
            Some(0) => Err(format!("--{name} must be at least 1, not `0`")),
            ms => Ok(ms),
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
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn values_switches_and_inline_values_are_parsed() {
        let f =
            Flags::parse(&args("--events 10 --quiet --target=http://x/"), &["events", "target"], &["quiet"]).unwrap();
        assert_eq!(f.get::<u64>("events", "a number").unwrap(), Some(10));
        assert_eq!(f.str("target"), Some("http://x/"));
        assert!(f.has("quiet"));
    }

    #[test]
    fn unknown_flags_missing_values_and_bad_numbers_are_named() {
        assert_eq!(Flags::parse(&args("--nope 1"), &["events"], &[]).unwrap_err(), "unknown flag --nope");
        assert_eq!(Flags::parse(&args("--events"), &["events"], &[]).unwrap_err(), "--events needs a value");
        let f = Flags::parse(&args("--events ten"), &["events"], &[]).unwrap();
        assert_eq!(f.get::<u64>("events", "a whole number").unwrap_err(), "--events must be a whole number, not `ten`");
    }

    #[test]
    fn positive_ms_refuses_zero_negatives_and_words() {
        let ms = |v: &str| Flags::parse(&args(&format!("--every {v}")), &["every"], &[]).unwrap().positive_ms("every");
        assert_eq!(ms("50").unwrap(), Some(50));
        assert_eq!(ms("0").unwrap_err(), "--every must be at least 1, not `0`");
        for bad in ["-5", "soon", "1.5"] {
            let e = ms(bad).unwrap_err();
            assert!(e.starts_with("--every must be a whole number of milliseconds"), "{bad}: {e}");
        }
        assert_eq!(Flags::default().positive_ms("every").unwrap(), None);
    }

    #[test]
    fn host_port_is_host_colon_port_with_loopback_for_an_empty_host() {
        let hp = |v: &str| Flags::parse(&[format!("--addr={v}")], &["addr"], &[]).unwrap().host_port("addr");
        assert_eq!(hp("127.0.0.1:0").unwrap().as_deref(), Some("127.0.0.1:0"));
        assert_eq!(hp(":9100").unwrap().as_deref(), Some("127.0.0.1:9100"));
        assert_eq!(hp("[::1]:65535").unwrap().as_deref(), Some("[::1]:65535"));
        assert_eq!(hp("localhost:8080").unwrap().as_deref(), Some("localhost:8080"));
        for bad in ["", "9100", "host:", "host:x", "host:+1", "host:-1", "host:65536", "::1:80", "[]:80", "[::1:80"] {
            let e = hp(bad).unwrap_err();
            assert!(e.starts_with("--addr must be HOST:PORT"), "{bad}: {e}");
        }
        assert_eq!(Flags::default().host_port("addr").unwrap(), None);
    }

    #[test]
    fn the_replaced_replica_flags_are_unknown() {
        // replica: --watch-artifact became --watch-artifact-ms N; python's --metrics-port is --metrics-addr
        let known = &["watch-artifact-ms", "metrics-addr"];
        assert_eq!(Flags::parse(&args("--watch-artifact"), known, &[]).unwrap_err(), "unknown flag --watch-artifact");
        assert_eq!(Flags::parse(&args("--metrics-port 0"), known, &[]).unwrap_err(), "unknown flag --metrics-port");
    }
}
