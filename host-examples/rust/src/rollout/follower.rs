//! The follower (docs/rollout.md, "What a replica does"), driven: the
//! decisions are the component's (`rollout-open`, `rollout-step`, "The
//! follower in the component"); this file does the I/O they name. A tick
//! feeds `tick`, makes each call the step answers (the store's three
//! commands through a [`RolloutStore`], the load and swap through
//! [`LiveArtifact::swap_bytes`]), feeds the answer back, until `call` is
//! null. The follower's whole state is a text kept here between steps, so
//! it runs on whichever artifact is current: after a swap, the new one.

use retry_policy_core::rollout::{Identity, Refusal};
use serde_json::{json, Value};

use super::RolloutError;
use crate::artifact::container::sha256_hex;
use crate::{ArtifactSource, InMemoryStore, LiveArtifact, PolicyInstance, Swapped, SystemClock};

/// What the follower asks of the fleet's Redis. Each call is bounded by the
/// replica's store timeout; `Err` is the store's failure, said in one line.
pub trait RolloutStore {
    /// One pipelined round trip: `HSET retry-policy:{rollout}:replicas
    /// <replica_id> <status>` then `GETRANGE retry-policy:{rollout}:state 0
    /// 4096` (empty, or `None`: nothing published).
    fn tick(&self, replica_id: &str, status: &str) -> Result<Option<Vec<u8>>, String>;
    /// `HSTRLEN <key> bytes`.
    fn artifact_len(&self, key: &str) -> Result<u64, String>;
    /// `HMGET <key> bytes signature key_id`, bounded by max(store timeout,
    /// 5 s) (up to 4 MiB).
    fn artifact(&self, key: &str) -> Result<[Option<Vec<u8>>; 3], String>;
}

/// Events stopped (for any reason) and dead-lettered since the replica
/// started (the status record reports them since the running artifact came in).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub events: u64,
    pub dead_letters: u64,
}

/// What one tick did.
#[derive(Debug, Default)]
pub struct Tick {
    /// Lines for the replica's log (stderr), in order.
    pub log: Vec<String>,
    /// A refusal (count `webhook_policy_reloads_total{result="refused"}`).
    pub refused: Option<Refusal>,
    /// The swap made (count `{result="applied"}`).
    pub swapped: Option<Swapped>,
    /// The component refused an input or could not run: the tick ended
    /// there, the state text unchanged (a host bug; log it).
    pub error: Option<RolloutError>,
}

/// This process as a Rust replica: `replica_id`, else `rust-<hostname>-<pid>`.
pub fn rust_identity(replica_id: Option<&str>) -> Identity {
    let host = hostname();
    let pid = std::process::id();
    let replica_id = replica_id.map_or_else(|| format!("rust-{host}-{pid}"), str::to_string);
    Identity { replica_id, language: "rust".into(), host, pid: pid.into() }
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

impl PolicyInstance {
    /// The component's `rollout-open`: the config as JSON text to the
    /// answer `{"state", "key_ids"}` as JSON text, or the component's error.
    pub fn rollout_open(&mut self, config: &str) -> Result<Result<String, String>, crate::HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_rollout_open(s, config))
    }

    /// The component's `rollout-step`: the state text and one input to the
    /// answer `{"state", "call", "log", "refused", "swapped"}`, or the component's error.
    pub fn rollout_step(&mut self, state: &str, input: &str) -> Result<Result<String, String>, crate::HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_rollout_step(s, state, input))
    }
}

/// A replica's follower: the component's state text, and an instance of
/// the live artifact to run it on.
pub struct Follower {
    state: String,
    key_ids: Vec<String>,
    /// The instance, and the live artifact's generation it was made at.
    instance: Option<(u64, PolicyInstance)>,
}

impl Follower {
    /// A follower for `me` trusting the keys of `trust_pem` (the
    /// `--trust-key` file's text, [`super::read_trust_file`]), whose running
    /// artifact came in at `since_ms` (Unix ms). A text with no Ed25519
    /// public key is `rollout_trust_invalid` (a setup error: exit 2).
    pub fn open(me: &Identity, trust_pem: &str, since_ms: u64, live: &LiveArtifact) -> Result<Follower, RolloutError> {
        let config = json!({
            "replica_id": me.replica_id, "language": me.language, "host": me.host, "pid": me.pid,
            "trust_pem": trust_pem, "since_ms": since_ms,
        });
        let mut f = Follower { state: String::new(), key_ids: vec![], instance: None };
        let answer = f.run(live, |inst| inst.rollout_open(&config.to_string()))?;
        f.state = answer["state"].as_str().unwrap_or_default().to_string();
        f.key_ids =
            answer["key_ids"].as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from).collect();
        Ok(f)
    }

    /// The trusted keys' ids, in file order.
    pub fn key_ids(&self) -> &[String] {
        &self.key_ids
    }

    /// The component's state text (opaque: only the component reads it).
    pub fn state(&self) -> &str {
        &self.state
    }

    /// One tick (`now_ms`: the wall clock without any skew; `counts`: since
    /// the replica started; `document_version`: the version new events are
    /// admitted under, `None` for the running artifact's embedded one).
    pub fn tick(
        &mut self,
        store: &dyn RolloutStore,
        live: &LiveArtifact,
        counts: Counts,
        document_version: Option<&str>,
        now_ms: u64,
    ) -> Tick {
        let mut input = running_input("tick", live, counts, document_version, now_ms);
        let mut tick = Tick::default();
        // The fetched bytes, kept for `load`.
        let mut fetched: Vec<u8> = Vec::new();
        loop {
            let answer = match self.step(live, &input) {
                Ok(a) => a,
                Err(e) => {
                    tick.error = Some(e);
                    return tick;
                }
            };
            tick.log.extend(answer["log"].as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from));
            if let Some(r) = answer["refused"].as_object() {
                let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                let sha256 = r.get("sha256").and_then(Value::as_str).map(Into::into);
                let at_ms = r.get("at_ms").and_then(Value::as_u64).unwrap_or_default();
                tick.refused = Some(Refusal { sha256, code: text("code"), message: text("message"), at_ms });
            }
            let call = &answer["call"];
            let text = |k: &str| call[k].as_str().unwrap_or_default();
            input = match text("op") {
                "" => return tick,
                "tick" => match store.tick(text("replica_id"), text("status")) {
                    Ok(t) => json!({"op": "tick_reply", "text": t.map(|b| String::from_utf8_lossy(&b).into_owned())}),
                    Err(e) => json!({"op": "tick_reply", "error": e}),
                },
                "artifact_len" => match store.artifact_len(text("key")) {
                    Ok(len) => json!({"op": "artifact_len", "len": len}),
                    Err(e) => json!({"op": "artifact_len", "error": e}),
                },
                "artifact" => match store.artifact(text("key")) {
                    Ok([bytes, signature, key_id]) => {
                        let utf8 = |b: Option<Vec<u8>>| b.map(|b| String::from_utf8_lossy(&b).into_owned());
                        let (sha256, len) = match &bytes {
                            Some(b) => (Some(sha256_hex(b)), Some(b.len())),
                            None => (None, None),
                        };
                        fetched = bytes.unwrap_or_default();
                        json!({"op": "artifact", "sha256": sha256, "len": len,
                               "signature": utf8(signature), "key_id": utf8(key_id)})
                    }
                    Err(e) => json!({"op": "artifact", "error": e}),
                },
                "load" => match live.swap_bytes(&std::mem::take(&mut fetched), ArtifactSource::Redis) {
                    Ok(swapped) => {
                        tick.swapped = Some(swapped);
                        json!({"op": "loaded"})
                    }
                    Err(e) => json!({"op": "loaded", "code": e.code(), "message": e.message()}),
                },
                other => {
                    tick.error =
                        Some(RolloutError::Component(format!("the component asked for an unknown call `{other}`")));
                    return tick;
                }
            };
        }
    }

    /// The artifact was swapped another way (a file swap, a direct
    /// [`LiveArtifact::swap_bytes`]): the status record's `since_ms` and
    /// counts start again at `now_ms` and `counts`, as after the follower's
    /// own swaps (the component's `swapped` input).
    pub fn artifact_swapped(
        &mut self,
        live: &LiveArtifact,
        counts: Counts,
        document_version: Option<&str>,
        now_ms: u64,
    ) -> Result<(), RolloutError> {
        let input = running_input("swapped", live, counts, document_version, now_ms);
        self.step(live, &input).map(|_| ())
    }

    /// One `rollout-step`; its state text kept.
    fn step(&mut self, live: &LiveArtifact, input: &Value) -> Result<Value, RolloutError> {
        let state = std::mem::take(&mut self.state);
        let answer = self.run(live, |inst| inst.rollout_step(&state, &input.to_string()));
        self.state = match &answer {
            Ok(a) => a["state"].as_str().map_or(state, Into::into),
            Err(_) => state,
        };
        answer
    }

    /// Call the component on an instance of the current artifact (made
    /// again after a swap); its answer parsed.
    fn run(
        &mut self,
        live: &LiveArtifact,
        call: impl FnOnce(&mut PolicyInstance) -> Result<Result<String, String>, crate::HostError>,
    ) -> Result<Value, RolloutError> {
        let generation = live.generation();
        if self.instance.as_ref().is_none_or(|(g, _)| *g != generation) {
            let inst = live
                .current()
                .instantiate(SystemClock, InMemoryStore::new())
                .map_err(|e| RolloutError::Component(e.to_string()))?;
            self.instance = Some((generation, inst));
        }
        let (_, inst) = self.instance.as_mut().expect("made above");
        let text = call(inst)
            .map_err(|e| RolloutError::Component(e.to_string()))?
            .map_err(|e| RolloutError::from_component(&e))?;
        serde_json::from_str(&text).map_err(|e| RolloutError::Component(format!("the component answered no JSON: {e}")))
    }
}

/// A `tick` or `swapped` input: the running artifact, the document new
/// events are admitted under (`None`: the artifact's embedded one), the counts.
fn running_input(op: &str, live: &LiveArtifact, counts: Counts, document_version: Option<&str>, now_ms: u64) -> Value {
    let info = live.info();
    let version = document_version.map_or_else(|| info.document_version.clone().unwrap_or_default(), Into::into);
    json!({
        "op": op, "now_ms": now_ms, "sha256": info.sha256, "document_version": version,
        "events": counts.events, "dead_letters": counts.dead_letters,
    })
}
