//! `retry-policy publish` and `retry-policy rollout status|promote|rollback`
//! (docs/rollout.md, "The commands"): the artifact is checked as a replica
//! checks it, signed with the team's Ed25519 key, written to the fleet's
//! Redis, and announced by a compare-and-set of the rollout record
//! ([`crate::rollout::admin`]). Exit 0 done, 1 refused or failed (a refused
//! artifact or change, the store unreachable), 2 usage or unreadable input.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::exit::{usage, Failure};
use crate::artifact::container::sha256_hex;
use crate::artifact::read_file;
use crate::rollout::admin::{self, AdminError, ArtifactFields};
use crate::rollout::{bucket, desired, PrivateKey, Record};
use crate::tls::{TrustConfig, TrustRoots};
use crate::{ArtifactRef, PolicyEngine};

/// How long one store command may take.
const STORE_TIMEOUT: Duration = Duration::from_secs(5);
/// `rollout status` lists the replicas seen within this many ms.
pub const SEEN_WITHIN_MS: u64 = 5_000;

impl From<AdminError> for Failure {
    fn from(e: AdminError) -> Failure {
        match e {
            AdminError::Url(m) => Failure::Usage(m),
            other => Failure::Refused(other.to_string()),
        }
    }
}

/// `--redis URL` or `--redis-cluster URL`, exactly one; `ca_file`: more
/// CA certificates (PEM) trusted for `rediss://`.
pub fn connect(
    redis: Option<&str>,
    cluster: Option<&str>,
    ca_file: Option<&str>,
) -> Result<Box<dyn redis::ConnectionLike>, Failure> {
    let (url, is_cluster) = match (redis, cluster) {
        (Some(u), None) => (u, false),
        (None, Some(u)) => (u, true),
        (Some(_), Some(_)) => return Err(usage("give --redis URL or --redis-cluster URL, not both")),
        (None, None) => return Err(usage("missing --redis URL (or --redis-cluster URL)")),
    };
    let flag = if is_cluster { "--redis-cluster" } else { "--redis" };
    let trust =
        TrustRoots::load(&TrustConfig { ca_file: ca_file.map(Into::into) }).map_err(|e| usage(e.to_string()))?;
    admin::connect(url, is_cluster, STORE_TIMEOUT, &trust).map_err(|e| Failure::from(e).within(flag))
}

/// `--canary PERCENT`: a whole number from 1 to 100.
pub fn canary_percent(text: Option<&str>) -> Result<Option<u8>, Failure> {
    match text {
        None => Ok(None),
        Some(t) => match t.parse::<u8>() {
            Ok(p) if (1..=100).contains(&p) => Ok(Some(p)),
            _ => Err(usage(format!("--canary must be a whole number from 1 to 100, not `{t}`"))),
        },
    }
}

/// An artifact checked and signed, ready to publish (steps 1-2 of `publish`).
pub struct Signed {
    bytes: Vec<u8>,
    sha256: String,
    signature: String,
    key_id: String,
    abi: String,
    document_version: String,
}

/// Steps 1-2: read `artifact` and run every check a replica runs (its own
/// sha256 as the pin: a pin in the environment names a build, not this
/// artifact), read the key, sign. Nothing is sent yet.
pub fn sign(artifact: &str, key_file: &str) -> Result<Signed, Failure> {
    let bytes = read_file(Path::new(artifact))?;
    let sha256 = sha256_hex(&bytes);
    let engine = PolicyEngine::load(ArtifactRef::Bytes(&bytes), Some(&sha256))
        .map_err(|e| Failure::Refused(format!("{artifact}: {e}")))?;
    let bytes_of_key = std::fs::read(key_file).map_err(|e| usage(format!("--key {key_file}: {e}")))?;
    let key = PrivateKey::parse(&String::from_utf8_lossy(&bytes_of_key))
        .map_err(|e| usage(format!("--key {key_file}: {e}")))?;
    let info = engine.info();
    Ok(Signed {
        signature: key.sign(&sha256),
        key_id: key.key_id(),
        abi: info.abi.clone(),
        document_version: info.document_version.clone().unwrap_or_default(),
        bytes,
        sha256,
    })
}

/// Steps 3-5 on `conn`: the new record.
pub fn publish_signed(conn: &mut dyn redis::ConnectionLike, a: &Signed, canary: Option<u8>) -> Result<Record, Failure> {
    let fields = ArtifactFields {
        bytes: &a.bytes,
        sha256: &a.sha256,
        signature: &a.signature,
        key_id: &a.key_id,
        abi: &a.abi,
        document_version: &a.document_version,
        published_at_ms: now_ms(),
    };
    Ok(admin::publish(conn, &fields, canary)?)
}

/// `publish ARTIFACT --key FILE [--canary P]` on `conn`: the new record.
pub fn publish(
    conn: &mut dyn redis::ConnectionLike,
    artifact: &str,
    key_file: &str,
    canary: Option<u8>,
) -> Result<Record, Failure> {
    publish_signed(conn, &sign(artifact, key_file)?, canary)
}

/// Unix time in ms.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// What `rollout status` shows: the record and the replicas seen lately.
#[derive(Clone, Debug)]
pub struct Status {
    /// `None`: nothing is published.
    pub record: Option<Record>,
    /// Each replica seen within [`SEEN_WITHIN_MS`]: its status record plus
    /// `bucket` and `desired` (whether it runs its desired artifact).
    pub replicas: Vec<Value>,
}

/// `rollout status` on `conn`, at `now_ms`.
pub fn status(conn: &mut dyn redis::ConnectionLike, now_ms: u64) -> Result<Status, Failure> {
    let record = admin::read_record(conn)?;
    let replicas = admin::replicas(conn)?
        .into_iter()
        .filter(|(_, s)| s["seen_ms"].as_u64().is_some_and(|seen| now_ms.saturating_sub(seen) <= SEEN_WITHIN_MS))
        .map(|(id, mut s)| {
            let want = record.as_ref().map(|r| desired(r, &id).to_string());
            s["replica_id"] = json!(id);
            s["bucket"] = json!(bucket(&id));
            s["desired"] = json!(want.as_deref().is_some_and(|w| s["artifact_sha256"] == w));
            s
        })
        .collect();
    Ok(Status { record, replicas })
}

fn short(v: &Value) -> String {
    v.as_str().map_or_else(|| "-".to_string(), |s| s.chars().take(12).collect())
}

fn short_sha(s: &str) -> &str {
    s.get(..12).unwrap_or(s)
}

impl Status {
    /// `--json`: one object `{"record": <the record's canonical text, or null>, "replicas": [...]}`.
    pub fn json(&self) -> String {
        let record = self.record.as_ref().map_or_else(|| "null".to_string(), Record::canonical);
        format!(r#"{{"record":{record},"replicas":{}}}"#, Value::Array(self.replicas.clone()))
    }

    /// The text form: the record on one line, then a table of the replicas.
    pub fn text(&self) -> String {
        let mut out = String::new();
        match &self.record {
            None => out.push_str("record   (nothing published)\n"),
            Some(r) => {
                let canary = r
                    .canary
                    .as_ref()
                    .map_or_else(|| "none".to_string(), |c| format!("{} at {}%", short_sha(&c.sha256), c.percent));
                let previous: Vec<&str> = r.previous.iter().map(|p| short_sha(p)).collect();
                let _ = writeln!(
                    out,
                    "record   epoch {}  stable {}  canary {}  previous [{}]",
                    r.epoch,
                    short_sha(&r.stable),
                    canary,
                    previous.join(", ")
                );
            }
        }
        let _ = writeln!(out, "replicas seen in the last {SEEN_WITHIN_MS} ms: {}", self.replicas.len());
        let _ = writeln!(
            out,
            "{:<24} {:<8} {:<16} {:>6}  {:<12} {:<7} {:>14} {:>8} {:>6}  refusal",
            "replica", "language", "host", "bucket", "running", "desired", "since_ms", "events", "dead"
        );
        for s in &self.replicas {
            let refusal = match s["refusal"].as_object() {
                Some(r) => format!("{} {}", r["code"].as_str().unwrap_or(""), short(&r["sha256"])),
                None => "-".into(),
            };
            let text = |k: &str| s[k].as_str().unwrap_or("").to_string();
            let _ = writeln!(
                out,
                "{:<24} {:<8} {:<16} {:>6}  {:<12} {:<7} {:>14} {:>8} {:>6}  {refusal}",
                text("replica_id"),
                text("language"),
                text("host"),
                s["bucket"],
                short(&s["artifact_sha256"]),
                if s["desired"] == true { "yes" } else { "NO" },
                s["since_ms"],
                s["events"],
                s["dead_letters"],
            );
        }
        out
    }
}
