//! The rollout record and the canary rule (docs/rollout.md, "The rollout
//! record" and "Which artifact a replica runs"). The text is parsed with
//! the crate's strict JSON parser, every rule is checked, and the record's
//! canonical text is written back and compared byte for byte with what was
//! read: an unknown or missing field, a wrong type, `1.0` for `1`, a
//! duplicate key, another key order or any whitespace all fail that
//! comparison or a rule, with the one code `rollout_record_invalid`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use sha2::{Digest, Sha256};

use super::RolloutError;
use crate::json::{self, Value};

/// The longest record text, in bytes.
pub const MAX_RECORD_BYTES: usize = 4096;
/// The largest epoch (2^53 − 1, exact in every language's JSON numbers).
pub const MAX_EPOCH: u64 = (1 << 53) - 1;
/// At most this many previous stable artifacts are kept.
pub const MAX_PREVIOUS: usize = 5;

/// A canary in progress: the replicas whose bucket is below `percent` run `sha256`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canary {
    pub sha256: String,
    /// 1 to 100.
    pub percent: u8,
}

/// The rollout record (`"v": 1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// 1 to [`MAX_EPOCH`]; every change of the record increases it by one.
    pub epoch: u64,
    pub stable: String,
    pub canary: Option<Canary>,
    /// Earlier stable artifacts, newest first, at most [`MAX_PREVIOUS`].
    pub previous: Vec<String>,
}

/// A sha256 as the record writes it: 64 lowercase hex digits.
pub fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// sha256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// A replica's bucket: the first four bytes of sha256(UTF-8 of its id),
/// big-endian, modulo 100.
pub fn bucket(replica_id: &str) -> u32 {
    let digest = Sha256::digest(replica_id.as_bytes());
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]) % 100
}

/// The sha256 `replica_id` should run under `record`: the canary's when
/// there is one and the replica's bucket is below its percent, else stable.
pub fn desired<'r>(record: &'r Record, replica_id: &str) -> &'r str {
    match &record.canary {
        Some(c) if bucket(replica_id) < u32::from(c.percent) => &c.sha256,
        _ => &record.stable,
    }
}

fn invalid(why: impl Into<String>) -> RolloutError {
    RolloutError::RecordInvalid(why.into())
}

fn sha_field(v: Option<&Value>, name: &str) -> Result<String, RolloutError> {
    match v.and_then(Value::as_str) {
        Some(s) if is_sha256(s) => Ok(s.to_string()),
        _ => Err(invalid(format!("`{name}` must be a sha256 (64 lowercase hex digits)"))),
    }
}

/// An integer member (not a float that happens to be integral).
fn int(v: Option<&Value>) -> Option<u64> {
    match v {
        Some(Value::Int(n)) => Some(*n),
        _ => None,
    }
}

impl Record {
    /// Read a record text: parsed, checked, and refused unless it is the
    /// canonical text of what was read.
    pub fn parse(text: &str) -> Result<Record, RolloutError> {
        if text.len() > MAX_RECORD_BYTES {
            return Err(invalid(format!("the record is {} bytes, more than {MAX_RECORD_BYTES}", text.len())));
        }
        let v = json::parse(text).map_err(|e| invalid(format!("not JSON: {e}")))?;
        if !matches!(v, Value::Object(_)) {
            return Err(invalid("the record is not a JSON object"));
        }
        if int(v.get("v")) != Some(1) {
            return Err(invalid("`v` must be the integer 1"));
        }
        let epoch = int(v.get("epoch"))
            .filter(|e| (1..=MAX_EPOCH).contains(e))
            .ok_or_else(|| invalid(format!("`epoch` must be an integer from 1 to {MAX_EPOCH}")))?;
        let stable = sha_field(v.get("stable"), "stable")?;
        let canary = match v.get("canary") {
            Some(Value::Null) => None,
            Some(c @ Value::Object(_)) => {
                let sha256 = sha_field(c.get("sha256"), "canary.sha256")?;
                let percent = int(c.get("percent"))
                    .filter(|p| (1..=100).contains(p))
                    .ok_or_else(|| invalid("`canary.percent` must be an integer from 1 to 100"))?;
                Some(Canary { sha256, percent: percent as u8 })
            }
            _ => return Err(invalid("`canary` must be null or an object {sha256, percent}")),
        };
        let previous = match v.get("previous") {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, x)| sha_field(Some(x), &format!("previous[{i}]")))
                .collect::<Result<Vec<_>, _>>()?,
            _ => return Err(invalid("`previous` must be an array of sha256s")),
        };
        let record = Record { epoch, stable, canary, previous };
        record.check()?;
        if record.canonical() != text {
            return Err(invalid(
                "the text is not the record's canonical text (exactly v, epoch, stable, canary, previous in that \
                 order, no other field, no whitespace, plain integers)",
            ));
        }
        Ok(record)
    }

    /// The rules between fields: a canary differs from stable, at most
    /// [`MAX_PREVIOUS`] previous ones, none of them stable, the text's size.
    pub fn check(&self) -> Result<(), RolloutError> {
        if !(1..=MAX_EPOCH).contains(&self.epoch) {
            return Err(invalid(format!("`epoch` must be an integer from 1 to {MAX_EPOCH}")));
        }
        let named = core::iter::once(("stable", &self.stable))
            .chain(self.canary.iter().map(|c| ("canary.sha256", &c.sha256)))
            .chain(self.previous.iter().map(|p| ("previous", p)));
        for (name, sha) in named {
            if !is_sha256(sha) {
                return Err(invalid(format!("`{name}` must be a sha256 (64 lowercase hex digits)")));
            }
        }
        if let Some(c) = &self.canary {
            if c.sha256 == self.stable {
                return Err(invalid("`canary.sha256` must differ from `stable`"));
            }
            if !(1..=100).contains(&c.percent) {
                return Err(invalid("`canary.percent` must be an integer from 1 to 100"));
            }
        }
        if self.previous.len() > MAX_PREVIOUS {
            return Err(invalid(format!("`previous` holds {} artifacts, at most {MAX_PREVIOUS}", self.previous.len())));
        }
        if self.previous.contains(&self.stable) {
            return Err(invalid("`previous` must not hold `stable`"));
        }
        if self.canonical().len() > MAX_RECORD_BYTES {
            return Err(invalid(format!("the record's text is more than {MAX_RECORD_BYTES} bytes")));
        }
        Ok(())
    }

    /// The record's one canonical text.
    pub fn canonical(&self) -> String {
        let canary = match &self.canary {
            None => "null".to_string(),
            Some(c) => format!(r#"{{"sha256":"{}","percent":{}}}"#, c.sha256, c.percent),
        };
        let previous: Vec<String> = self.previous.iter().map(|p| format!("\"{p}\"")).collect();
        format!(
            r#"{{"v":1,"epoch":{},"stable":"{}","canary":{canary},"previous":[{}]}}"#,
            self.epoch,
            self.stable,
            previous.join(",")
        )
    }
}
