//! The follower (docs/rollout.md, "What a replica does"): one tick is one
//! pipelined round trip (`HSET` this replica's status record, `GETRANGE` of
//! the rollout record's first 4,097 bytes); when the record's epoch differs from the last one
//! settled, the desired artifact is sized (`HSTRLEN`), fetched (`HMGET`),
//! its signer and signature checked, its digest compared, and it is swapped
//! in through the host's own path ([`LiveArtifact::swap_bytes`]: every load
//! check, then the swap a file swap makes). A store failure changes nothing
//! and leaves the epoch unsettled; a refusal keeps the running artifact,
//! settles the epoch and is reported once.

use serde_json::json;

use super::record::{desired, Record};
use super::trust::TrustedKeys;
use super::RolloutError;
use crate::artifact::container::sha256_hex;
use crate::artifact::MAX_ARTIFACT_BYTES;
use crate::{ArtifactError, ArtifactSource, LiveArtifact, Swapped};

/// What the follower asks of the fleet's Redis. Each call is bounded by the
/// replica's store timeout; `Err` is the store's failure, said in one line.
pub trait RolloutStore {
    /// One pipelined round trip: `HSET retry-policy:{rollout}:replicas
    /// <replica_id> <status>` then `GETRANGE retry-policy:{rollout}:state 0
    /// 4096` (empty, or `None`: nothing published).
    fn tick(&self, replica_id: &str, status: &str) -> Result<Option<Vec<u8>>, String>;
    /// `HSTRLEN <artifact key> bytes`.
    fn artifact_len(&self, sha256: &str) -> Result<u64, String>;
    /// `HMGET <artifact key> bytes signature key_id`, bounded by
    /// max(store timeout, 5 s) (up to 4 MiB).
    fn artifact(&self, sha256: &str) -> Result<[Option<Vec<u8>>; 3], String>;
}

/// Events finished and dead-lettered since the replica started (the
/// status record reports them since the running artifact came in).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub events: u64,
    pub dead_letters: u64,
}

/// A refused artifact, as the status record carries it.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// The desired sha256 (`None` when the record itself was refused).
    pub sha256: Option<String>,
    pub code: String,
    pub message: String,
    pub at_ms: u64,
}

/// What one tick did.
#[derive(Clone, Debug)]
pub enum Tick {
    /// Nothing changed: no record, or its epoch is settled.
    Idle,
    /// The store failed; `first` when it starts a run of failures (log it once).
    StoreFailed { message: String, first: bool },
    /// The epoch is settled: the replica already runs its desired artifact.
    Settled,
    /// The desired artifact was swapped in.
    Swapped(Box<Swapped>),
    /// The desired artifact (or the record) was refused; `line` is the log line.
    Refused { refusal: Refusal, line: String },
}

/// Who the replica is, for its status record and the canary rule.
#[derive(Clone, Debug)]
pub struct Identity {
    pub replica_id: String,
    /// `rust`, `node`, `python` or `go`.
    pub language: String,
    pub host: String,
    pub pid: u32,
}

impl Identity {
    /// This process as a Rust replica: `replica_id`, else `rust-<hostname>-<pid>`.
    pub fn rust(replica_id: Option<&str>) -> Identity {
        let host = hostname();
        let pid = std::process::id();
        let replica_id = replica_id.map_or_else(|| format!("rust-{host}-{pid}"), str::to_string);
        Identity { replica_id, language: "rust".into(), host, pid }
    }
}

/// gethostname(2), or `localhost` when it fails.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; the name is NUL-terminated within it on success.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(0);
    let name = String::from_utf8_lossy(&buf[..end]).into_owned();
    if ok && !name.is_empty() {
        name
    } else {
        "localhost".into()
    }
}

/// The follower's state between ticks.
pub struct Follower {
    me: Identity,
    trusted: TrustedKeys,
    settled: u64,
    refusal: Option<Refusal>,
    failing: bool,
    /// A tick succeeded after failures and nobody has said so yet.
    back: bool,
    /// The sha256 of the last refused record text (a record too invalid to have an epoch).
    bad_record: Option<String>,
    since_ms: u64,
    base: Counts,
}

impl Follower {
    /// A follower whose running artifact came in at `since_ms` (Unix ms).
    pub fn new(me: Identity, trusted: TrustedKeys, since_ms: u64) -> Follower {
        Follower {
            me,
            trusted,
            settled: 0,
            refusal: None,
            failing: false,
            back: false,
            bad_record: None,
            since_ms,
            base: Counts::default(),
        }
    }

    /// The last settled epoch (0 before any).
    pub fn epoch(&self) -> u64 {
        self.settled
    }

    /// Whether the store answered again after a run of failures, once (the
    /// caller logs `rollout: store reachable again`).
    pub fn take_store_back(&mut self) -> bool {
        std::mem::take(&mut self.back)
    }

    /// The status record of docs/rollout.md, as this tick sends it;
    /// `document_version` is the version of the document new events are
    /// admitted under (`None`: the running artifact's embedded one).
    pub fn status(
        &self,
        live: &LiveArtifact,
        counts: Counts,
        document_version: Option<&str>,
        now_ms: u64,
    ) -> serde_json::Value {
        let info = live.info();
        let refusal = self
            .refusal
            .as_ref()
            .map(|r| json!({"sha256": r.sha256, "code": r.code, "message": r.message, "at_ms": r.at_ms}));
        json!({
            "replica_id": self.me.replica_id, "language": self.me.language, "host": self.me.host,
            "pid": self.me.pid, "artifact_sha256": info.sha256,
            "document_version": document_version.map_or_else(|| info.document_version.unwrap_or_default(), str::to_string),
            "since_ms": self.since_ms,
            "events": counts.events.saturating_sub(self.base.events),
            "dead_letters": counts.dead_letters.saturating_sub(self.base.dead_letters),
            "seen_ms": now_ms, "epoch": self.settled, "refusal": refusal,
        })
    }

    /// One tick: report, read the record, and follow it when its epoch is
    /// new (`now_ms`: the wall clock without any skew; the status carries it).
    pub fn tick(
        &mut self,
        store: &dyn RolloutStore,
        live: &LiveArtifact,
        counts: Counts,
        document_version: Option<&str>,
        now_ms: u64,
    ) -> Tick {
        let status = self.status(live, counts, document_version, now_ms).to_string();
        let text = match store.tick(&self.me.replica_id, &status) {
            Ok(text) => text,
            Err(message) => return self.store_failed(message),
        };
        if std::mem::take(&mut self.failing) {
            self.back = true;
        }
        let Some(text) = text.filter(|t| !t.is_empty()) else { return Tick::Idle };
        let record = match Record::parse(&String::from_utf8_lossy(&text)) {
            Ok(r) => r,
            Err(e) => {
                // The same refused text again (known by its digest): reported already.
                let digest = sha256_hex(&text);
                if self.bad_record.as_deref() == Some(digest.as_str()) {
                    return Tick::Idle;
                }
                self.bad_record = Some(digest);
                return self.refuse(live, None, e, now_ms);
            }
        };
        self.bad_record = None;
        if record.epoch == self.settled {
            return Tick::Idle;
        }
        let want = desired(&record, &self.me.replica_id).to_string();
        if want == live.info().sha256 {
            self.settled = record.epoch;
            return Tick::Settled;
        }
        match self.fetch(store, &want) {
            Err(Fetch::Store(message)) => self.store_failed(message),
            Err(Fetch::Refused(e)) => {
                self.settled = record.epoch;
                self.refuse(live, Some(want), e, now_ms)
            }
            Ok(bytes) => match live.swap_bytes(&bytes, ArtifactSource::Redis) {
                Ok(swapped) => {
                    self.settled = record.epoch;
                    self.since_ms = now_ms;
                    self.base = counts;
                    Tick::Swapped(Box::new(swapped))
                }
                Err(e) => {
                    self.settled = record.epoch;
                    self.refuse(live, Some(want), e.into(), now_ms)
                }
            },
        }
    }

    /// Steps 2 to 6: size, fetch, signer, signature, digest.
    fn fetch(&self, store: &dyn RolloutStore, want: &str) -> Result<Vec<u8>, Fetch> {
        let missing = || {
            Fetch::Refused(RolloutError::ArtifactMissing(format!(
                "the record names {want}, but retry-policy:{{rollout}}:artifact:{want} has no complete artifact"
            )))
        };
        let too_large = |size: u64| {
            Fetch::Refused(RolloutError::Artifact(ArtifactError::TooLarge { source: "redis".into(), size: Some(size) }))
        };
        let len = store.artifact_len(want).map_err(Fetch::Store)?;
        if len == 0 {
            return Err(missing());
        }
        if len > MAX_ARTIFACT_BYTES as u64 {
            return Err(too_large(len));
        }
        let [bytes, signature, key_id] = store.artifact(want).map_err(Fetch::Store)?;
        let (Some(bytes), Some(signature), Some(key_id)) = (bytes, signature, key_id) else { return Err(missing()) };
        if bytes.len() as u64 > MAX_ARTIFACT_BYTES as u64 {
            return Err(too_large(bytes.len() as u64));
        }
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap_or_default();
        let found = sha256_hex(&bytes);
        self.trusted.verify(&text(key_id), &text(signature), &found).map_err(Fetch::Refused)?;
        if found != want {
            let e = ArtifactError::Sha256Mismatch { expected: want.to_string(), found };
            return Err(Fetch::Refused(e.into()));
        }
        Ok(bytes)
    }

    fn store_failed(&mut self, message: String) -> Tick {
        let first = !self.failing;
        self.failing = true;
        Tick::StoreFailed { message, first }
    }

    fn refuse(&mut self, live: &LiveArtifact, sha256: Option<String>, e: RolloutError, now_ms: u64) -> Tick {
        let running = live.info().sha256;
        let line = format!(
            "policy artifact refused source=redis sha256={} code={}: {}; keeping sha256={running}",
            sha256.as_deref().unwrap_or("none"),
            e.code(),
            e.message()
        );
        let refusal = Refusal { sha256, code: e.code().into(), message: e.message(), at_ms: now_ms };
        self.refusal = Some(refusal.clone());
        Tick::Refused { refusal, line }
    }
}

enum Fetch {
    Store(String),
    Refused(RolloutError),
}
