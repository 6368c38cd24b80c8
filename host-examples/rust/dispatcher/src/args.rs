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
}
