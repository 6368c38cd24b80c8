//! The follower (docs/rollout.md, "What a replica does"), sans-IO: a
//! state machine fed the answers of the fleet's Redis and of the host's
//! artifact loader, and polled for the next call to make. It never reads a
//! clock, a store or a file: the host passes the time and the replies.
//!
//! One tick walks these calls, each answered by the next input:
//!
//! ```text
//! tick ─► Call::Tick (HSET status + GETRANGE record) ─► tick_reply
//!   record unchanged, settled, invalid, or already running ─► done
//!   else ─► Call::ArtifactLen (HSTRLEN) ─► artifact_len
//!         ─► Call::Artifact (HMGET bytes signature key_id) ─► artifact
//!            (the host passes sha256 and length of the bytes, not the bytes)
//!         ─► Call::Load (the host's load checks and swap) ─► loaded ─► done
//! ```
//!
//! A store failure anywhere changes nothing and leaves the epoch unsettled
//! (the first of a run of failures is logged once, and the first success
//! after them); a refusal keeps the running artifact, settles the epoch and
//! is reported once. An invalid record has no epoch to settle: it is
//! reported once per distinct text.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::record::{desired, sha256_hex, Record};
use super::trust::TrustedKeys;
use super::{artifact_key, RolloutError, MAX_ARTIFACT_BYTES};

/// Who the replica is, for its status record and the canary rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// 1 to [`super::MAX_REPLICA_ID_BYTES`] bytes.
    pub replica_id: String,
    /// `rust`, `node`, `python` or `go`.
    pub language: String,
    pub host: String,
    pub pid: u64,
}

/// A refused artifact (or record), as the status record carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The desired sha256 (`None` when the record itself was refused).
    pub sha256: Option<String>,
    pub code: String,
    pub message: String,
    pub at_ms: u64,
}

/// What the running replica reports at a tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Running {
    /// Unix ms, the wall clock without any skew (other processes read it).
    pub now_ms: u64,
    /// The running artifact's sha256.
    pub sha256: String,
    /// The version of the document new events are admitted under (`""`: none).
    pub document_version: String,
    /// Events stopped (for any reason) and dead-lettered since the replica started.
    pub events: u64,
    pub dead_letters: u64,
}

/// What the artifact's hash held (`HMGET bytes signature key_id`), with the
/// bytes reduced to what the follower needs; a `None` is a missing field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// sha256 of `bytes` (64 lowercase hex) and its length, or `None`.
    pub bytes: Option<(String, u64)>,
    pub signature: Option<String>,
    pub key_id: Option<String>,
}

/// An input: a tick, or the answer to the call the follower asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Tick(Running),
    /// The record's text (lossily decoded UTF-8; `None` or empty: nothing published), or the store's failure.
    TickReply(Result<Option<String>, String>),
    ArtifactLen(Result<u64, String>),
    Artifact(Result<Fetched, String>),
    /// The host's load checks and swap: done, or refused with a code and message.
    Loaded(Result<(), (String, String)>),
    /// The host swapped its artifact itself (a file, an explicit call): the
    /// status's `since_ms` and counts start again from `now_ms` and these counts.
    Swapped(Running),
}

/// The next call the host makes, its answer being the next [`Input`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// `HSET retry-policy:{rollout}:replicas <replica_id> <status>` then
    /// `GETRANGE retry-policy:{rollout}:state 0 4096`, one pipelined round trip.
    Tick { replica_id: String, status: String },
    /// `HSTRLEN <key> bytes`.
    ArtifactLen { sha256: String, key: String },
    /// `HMGET <key> bytes signature key_id`, bounded by max(store timeout, 5 s).
    Artifact { sha256: String, key: String },
    /// Load the bytes just fetched (every load check of docs/artifact.md) and swap them in.
    Load { sha256: String },
}

/// What one step asks and says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// The call to make now; `None`: the tick is over.
    pub call: Option<Call>,
    /// Lines for the replica's log, in order.
    pub log: Vec<String>,
    /// A refusal this step made (count `webhook_policy_reloads_total{result="refused"}`).
    pub refused: Option<Refusal>,
    /// The sha256 swapped in by this step.
    pub swapped: Option<String>,
}

/// Where a tick in progress stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiting {
    TickReply,
    ArtifactLen,
    Artifact,
    Loaded,
}

/// The tick in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    pub running: Running,
    pub waiting: Waiting,
    /// The record's epoch and the desired sha256 (from `artifact_len` on).
    pub epoch: u64,
    pub want: String,
}

/// The follower's whole state between steps (docs/rollout.md): small, and
/// written as a text the host keeps ([`super::wire`]), so an artifact swap,
/// which replaces the instance the follower runs on, loses nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Follower {
    pub me: Identity,
    pub trusted: TrustedKeys,
    /// The last settled epoch (0 before any).
    pub settled: u64,
    /// The latest refusal since start.
    pub refusal: Option<Refusal>,
    /// The last store call failed.
    pub failing: bool,
    /// sha256 of the last refused record text.
    pub bad_record: Option<String>,
    /// When the running artifact came in (Unix ms), and the counts then.
    pub since_ms: u64,
    pub base_events: u64,
    pub base_dead_letters: u64,
    pub pending: Option<Pending>,
    /// This step's store call failed (not kept between steps).
    pub(crate) failed_now: bool,
}

impl Follower {
    /// A follower whose running artifact came in at `since_ms`.
    pub fn new(me: Identity, trusted: TrustedKeys, since_ms: u64) -> Follower {
        Follower {
            me,
            trusted,
            settled: 0,
            refusal: None,
            failing: false,
            bad_record: None,
            since_ms,
            base_events: 0,
            base_dead_letters: 0,
            pending: None,
            failed_now: false,
        }
    }

    /// Take one input. An input the follower is not waiting for is
    /// `rollout_input_invalid` and changes nothing; a `tick` while a tick is
    /// in progress abandons that one (its epoch stays unsettled).
    pub fn step(&mut self, input: Input) -> Result<Step, RolloutError> {
        let input = match (input, self.pending.take()) {
            (Input::Tick(running), _) => {
                let status = self.status(&running);
                let call = Call::Tick { replica_id: self.me.replica_id.clone(), status };
                self.pending = Some(Pending { running, waiting: Waiting::TickReply, epoch: 0, want: String::new() });
                return Ok(Step { call: Some(call), ..Step::default() });
            }
            (Input::Swapped(running), pending) => {
                // A swap the host made itself (a file, an explicit call): the
                // status counts from it, as from a swap the follower asked for.
                self.pending = pending;
                self.since_ms = running.now_ms;
                self.base_events = running.events;
                self.base_dead_letters = running.dead_letters;
                return Ok(Step::default());
            }
            (input, Some(p)) => {
                let was_failing = self.failing;
                self.failed_now = false;
                let step = match (input, p.waiting) {
                    (Input::TickReply(reply), Waiting::TickReply) => self.tick_reply(p, reply),
                    (Input::ArtifactLen(reply), Waiting::ArtifactLen) => self.artifact_len(p, reply),
                    (Input::Artifact(reply), Waiting::Artifact) => self.artifact(p, reply),
                    (Input::Loaded(result), Waiting::Loaded) => self.loaded(p, result),
                    (input, _) => {
                        self.pending = Some(p);
                        input_error(&input, self.pending.as_ref())?
                    }
                };
                return Ok(self.after(was_failing, step));
            }
            (input, None) => input,
        };
        input_error(&input, self.pending.as_ref())
    }

    /// A run of store failures ends when a tick ends without one (not at the
    /// first call that answers: a tick whose `HMGET` keeps failing after
    /// its `GETRANGE` answered is still one run, logged once).
    fn after(&mut self, was_failing: bool, mut step: Step) -> Step {
        if !core::mem::take(&mut self.failed_now) && step.call.is_none() && was_failing {
            self.failing = false;
            step.log.insert(0, "rollout: store reachable again".to_string());
        }
        step
    }

    /// The status record of docs/rollout.md for this tick.
    pub fn status(&self, r: &Running) -> String {
        use crate::journal::json_text::string;
        let mut out: Vec<u8> = Vec::with_capacity(512);
        let key = |out: &mut Vec<u8>, k: &str| {
            out.push(if out.is_empty() { b'{' } else { b',' });
            string(out, k);
            out.push(b':');
        };
        let num = |out: &mut Vec<u8>, n: u64| out.extend_from_slice(n.to_string().as_bytes());
        for (k, v) in [("replica_id", &self.me.replica_id), ("language", &self.me.language), ("host", &self.me.host)] {
            key(&mut out, k);
            string(&mut out, v);
        }
        key(&mut out, "pid");
        num(&mut out, self.me.pid);
        key(&mut out, "artifact_sha256");
        string(&mut out, &r.sha256);
        key(&mut out, "document_version");
        string(&mut out, &r.document_version);
        let counts = [
            ("since_ms", self.since_ms),
            ("events", r.events.saturating_sub(self.base_events)),
            ("dead_letters", r.dead_letters.saturating_sub(self.base_dead_letters)),
            ("seen_ms", r.now_ms),
            ("epoch", self.settled),
        ];
        for (k, n) in counts {
            key(&mut out, k);
            num(&mut out, n);
        }
        key(&mut out, "refusal");
        match &self.refusal {
            None => out.extend_from_slice(b"null"),
            Some(f) => out.extend_from_slice(super::wire::refusal_text(f).as_bytes()),
        }
        out.push(b'}');
        String::from_utf8(out).unwrap_or_default()
    }

    fn tick_reply(&mut self, mut p: Pending, reply: Result<Option<String>, String>) -> Step {
        let text = match reply {
            Ok(text) => text,
            Err(message) => return self.store_failed(&p, message),
        };
        let step = Step::default();
        let Some(text) = text.filter(|t| !t.is_empty()) else { return step };
        let record = match Record::parse(&text) {
            Ok(r) => r,
            Err(e) => {
                // The same refused text again (known by its digest): reported already.
                let digest = sha256_hex(text.as_bytes());
                if self.bad_record.as_deref() == Some(digest.as_str()) {
                    return step;
                }
                self.bad_record = Some(digest);
                return self.refuse(&p, step, None, e);
            }
        };
        self.bad_record = None;
        if record.epoch == self.settled {
            return step;
        }
        let want = desired(&record, &self.me.replica_id).to_string();
        if want == p.running.sha256 {
            self.settled = record.epoch;
            return step;
        }
        let key = artifact_key(&want);
        p.epoch = record.epoch;
        p.want = want.clone();
        self.ask(p, Waiting::ArtifactLen, step, Call::ArtifactLen { sha256: want, key })
    }

    fn artifact_len(&mut self, p: Pending, reply: Result<u64, String>) -> Step {
        let len = match reply {
            Ok(len) => len,
            Err(message) => return self.store_failed(&p, message),
        };
        let step = Step::default();
        if len == 0 {
            return self.settle_refused(&p, step, missing(&p.want));
        }
        if len > MAX_ARTIFACT_BYTES {
            return self.settle_refused(&p, step, too_large(len));
        }
        let call = Call::Artifact { key: artifact_key(&p.want), sha256: p.want.clone() };
        self.ask(p, Waiting::Artifact, step, call)
    }

    fn artifact(&mut self, p: Pending, reply: Result<Fetched, String>) -> Step {
        let fetched = match reply {
            Ok(f) => f,
            Err(message) => return self.store_failed(&p, message),
        };
        let step = Step::default();
        let (Some((found, len)), Some(signature), Some(key_id)) = (fetched.bytes, fetched.signature, fetched.key_id)
        else {
            return self.settle_refused(&p, step, missing(&p.want));
        };
        if len > MAX_ARTIFACT_BYTES {
            return self.settle_refused(&p, step, too_large(len));
        }
        if let Err(e) = self.trusted.verify(&key_id, &signature, &found) {
            return self.settle_refused(&p, step, e);
        }
        if found != p.want {
            let e = RolloutError::Sha256Mismatch(format!("expected sha256 {}, found {found}", p.want));
            return self.settle_refused(&p, step, e);
        }
        let call = Call::Load { sha256: p.want.clone() };
        self.ask(p, Waiting::Loaded, step, call)
    }

    fn loaded(&mut self, p: Pending, result: Result<(), (String, String)>) -> Step {
        if let Err((code, message)) = result {
            return self.settle_refused(&p, Step::default(), RolloutError::Load { code, message });
        }
        self.settled = p.epoch;
        self.since_ms = p.running.now_ms;
        self.base_events = p.running.events;
        self.base_dead_letters = p.running.dead_letters;
        Step { swapped: Some(p.want), ..Step::default() }
    }

    /// Wait for the answer to `call`.
    fn ask(&mut self, mut p: Pending, waiting: Waiting, step: Step, call: Call) -> Step {
        p.waiting = waiting;
        self.pending = Some(p);
        Step { call: Some(call), ..step }
    }

    fn store_failed(&mut self, p: &Pending, message: String) -> Step {
        let mut step = Step::default();
        self.failed_now = true;
        if !self.failing {
            step.log.push(format!(
                "rollout: store unreachable, keeping sha256={}, retrying every tick: {}",
                p.running.sha256,
                one_line(&message)
            ));
        }
        self.failing = true;
        step
    }

    fn settle_refused(&mut self, p: &Pending, step: Step, e: RolloutError) -> Step {
        self.settled = p.epoch;
        self.refuse(p, step, Some(p.want.clone()), e)
    }

    fn refuse(&mut self, p: &Pending, mut step: Step, sha256: Option<String>, e: RolloutError) -> Step {
        let message = one_line(e.message());
        step.log.push(format!(
            "policy artifact refused source=redis sha256={} code={}: {message}; keeping sha256={}",
            sha256.as_deref().unwrap_or("none"),
            e.code(),
            p.running.sha256
        ));
        let refusal = Refusal { sha256, code: e.code().to_string(), message, at_ms: p.running.now_ms };
        self.refusal = Some(refusal.clone());
        step.refused = Some(refusal);
        step
    }
}

fn missing(want: &str) -> RolloutError {
    RolloutError::ArtifactMissing(format!(
        "the record names {want}, but {} has no complete artifact",
        artifact_key(want)
    ))
}

fn too_large(len: u64) -> RolloutError {
    RolloutError::TooLarge(format!("the stored artifact is {len} bytes, more than {MAX_ARTIFACT_BYTES}"))
}

/// A message on one line: control characters become spaces.
fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

fn input_error<T>(input: &Input, pending: Option<&Pending>) -> Result<T, RolloutError> {
    let waiting = pending.map_or("a tick", |p| waiting_name(p.waiting));
    Err(RolloutError::InputInvalid(format!("{} while the follower waits for {waiting}", input_name(input))))
}

fn input_name(i: &Input) -> &'static str {
    match i {
        Input::Tick(_) => "tick",
        Input::TickReply(_) => "tick_reply",
        Input::ArtifactLen(_) => "artifact_len",
        Input::Artifact(_) => "artifact",
        Input::Loaded(_) => "loaded",
        Input::Swapped(_) => "swapped",
    }
}

pub(crate) fn waiting_name(w: Waiting) -> &'static str {
    match w {
        Waiting::TickReply => "tick_reply",
        Waiting::ArtifactLen => "artifact_len",
        Waiting::Artifact => "artifact",
        Waiting::Loaded => "loaded",
    }
}
