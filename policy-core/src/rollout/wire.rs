//! The follower's JSON wire (the component's `rollout-open` and
//! `rollout-step`; docs/rollout.md, "The follower in the component"): the
//! open config, the inputs, the answers and the state text the host keeps
//! between steps. Every object is read strictly: an unknown or missing
//! field, a wrong type, is `rollout_input_invalid` naming it.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::follower::{Call, Fetched, Follower, Identity, Input, Pending, Refusal, Running, Step, Waiting};
use super::trust::TrustedKeys;
use super::{RolloutError, MAX_REPLICA_ID_BYTES};
use crate::journal::json_text::{string, to_text};
use crate::json::{self, Value};

fn bad(why: String) -> RolloutError {
    RolloutError::InputInvalid(why)
}

/// An object's members, refusing any not in `allowed`.
struct Obj<'v> {
    what: &'static str,
    v: &'v Value,
}

impl<'v> Obj<'v> {
    fn new(what: &'static str, v: &'v Value, allowed: &[&str]) -> Result<Obj<'v>, RolloutError> {
        let Value::Object(members) = v else { return Err(bad(format!("{what}: not a JSON object"))) };
        if let Some((k, _)) = members.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(bad(format!("{what}: unknown field `{k}`")));
        }
        Ok(Obj { what, v })
    }
    fn opt(&self, k: &str) -> Option<&'v Value> {
        self.v.get(k).filter(|x| !matches!(x, Value::Null))
    }
    fn u64(&self, k: &str) -> Result<u64, RolloutError> {
        match self.v.get(k) {
            Some(Value::Int(n)) => Ok(*n),
            _ => Err(bad(format!("{}: `{k}` must be a non-negative integer", self.what))),
        }
    }
    fn str(&self, k: &str) -> Result<String, RolloutError> {
        self.opt_str(k)?.ok_or_else(|| bad(format!("{}: `{k}` must be a string", self.what)))
    }
    fn opt_str(&self, k: &str) -> Result<Option<String>, RolloutError> {
        match self.opt(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(format!("{}: `{k}` must be a string or null", self.what))),
        }
    }
    fn bool(&self, k: &str) -> Result<bool, RolloutError> {
        match self.v.get(k) {
            Some(Value::Bool(b)) => Ok(*b),
            _ => Err(bad(format!("{}: `{k}` must be true or false", self.what))),
        }
    }
}

fn parse(what: &str, text: &str) -> Result<Value, RolloutError> {
    json::parse(text).map_err(|e| bad(format!("{what}: not JSON: {e}")))
}

/// `rollout-open`: the config (`replica_id`, `language`, `host`, `pid`,
/// `trust_pem`, `since_ms`) to the answer `{"state": …, "key_ids": […]}`;
/// an unreadable trust text is `rollout_trust_invalid`.
pub fn open(config: &str) -> Result<String, RolloutError> {
    let v = parse("config", config)?;
    let o = Obj::new("config", &v, &["replica_id", "language", "host", "pid", "trust_pem", "since_ms"])?;
    let replica_id = o.str("replica_id")?;
    if replica_id.is_empty() || replica_id.len() > MAX_REPLICA_ID_BYTES {
        return Err(bad(format!(
            "config: `replica_id` must be 1 to {MAX_REPLICA_ID_BYTES} bytes (got {})",
            replica_id.len()
        )));
    }
    let me = Identity { replica_id, language: o.str("language")?, host: o.str("host")?, pid: o.u64("pid")? };
    let trusted = TrustedKeys::parse(&o.str("trust_pem")?)?;
    let f = Follower::new(me, trusted, o.u64("since_ms")?);
    let ids: Vec<Value> = f.trusted.keys().iter().map(|(id, _)| Value::String(id.clone())).collect();
    let answer = Value::Object(alloc::vec![
        ("state".into(), Value::String(state_text(&f))),
        ("key_ids".into(), Value::Array(ids)),
    ]);
    Ok(to_text(&answer))
}

/// `rollout-step`: the state text and one input to the answer
/// `{"state", "call", "log", "refused", "swapped"}`. A refused input
/// changes nothing: the host keeps its state text.
pub fn step(state: &str, input: &str) -> Result<String, RolloutError> {
    let mut f = read_state(state)?;
    let step = f.step(read_input(input)?)?;
    Ok(answer_text(&state_text(&f), &step))
}

/// A reply to a call: exactly `{"op", "error"}` (the store's failure), or
/// exactly `op` and every one of `fields` (each present, null where the
/// wire allows it).
fn reply<'v>(what: &'static str, v: &'v Value, fields: &[&str]) -> Result<Result<Obj<'v>, String>, RolloutError> {
    if v.get("error").is_some() {
        let o = Obj::new(what, v, &["op", "error"])?;
        return Ok(Err(o.str("error")?));
    }
    let mut allowed = alloc::vec!["op"];
    allowed.extend_from_slice(fields);
    let o = Obj::new(what, v, &allowed)?;
    if let Some(k) = fields.iter().find(|k| v.get(k).is_none()) {
        return Err(bad(format!("{what}: `{k}` is missing (or give `error` alone)")));
    }
    Ok(Ok(o))
}

fn sha256_field(o: &Obj, k: &str) -> Result<String, RolloutError> {
    let s = o.str(k)?;
    if !super::is_sha256(&s) {
        return Err(bad(format!("{}: `{k}` must be a sha256 (64 lowercase hex digits)", o.what)));
    }
    Ok(s)
}

fn read_input(text: &str) -> Result<Input, RolloutError> {
    let v = parse("input", text)?;
    let op = v.get("op").and_then(Value::as_str).unwrap_or("");
    Ok(match op {
        "tick" | "swapped" => {
            let what = if op == "tick" { "tick" } else { "swapped" };
            let o = Obj::new(what, &v, &["op", "now_ms", "sha256", "document_version", "events", "dead_letters"])?;
            let running = Running {
                now_ms: o.u64("now_ms")?,
                sha256: sha256_field(&o, "sha256")?,
                document_version: o.str("document_version")?,
                events: o.u64("events")?,
                dead_letters: o.u64("dead_letters")?,
            };
            if op == "tick" {
                Input::Tick(running)
            } else {
                Input::Swapped(running)
            }
        }
        "tick_reply" => Input::TickReply(match reply("tick_reply", &v, &["text"])? {
            Err(e) => Err(e),
            Ok(o) => Ok(o.opt_str("text")?),
        }),
        "artifact_len" => Input::ArtifactLen(match reply("artifact_len", &v, &["len"])? {
            Err(e) => Err(e),
            Ok(o) => Ok(o.u64("len")?),
        }),
        "artifact" => Input::Artifact(match reply("artifact", &v, &["sha256", "len", "signature", "key_id"])? {
            Err(e) => Err(e),
            Ok(o) => Ok(Fetched {
                bytes: match o.opt("sha256") {
                    Some(_) => Some((sha256_field(&o, "sha256")?, o.u64("len")?)),
                    None if o.opt("len").is_none() => None,
                    None => return Err(bad("artifact: `len` must be null when `sha256` is (no bytes)".into())),
                },
                signature: o.opt_str("signature")?,
                key_id: o.opt_str("key_id")?,
            }),
        }),
        "loaded" => {
            let o = Obj::new("loaded", &v, &["op", "code", "message"])?;
            Input::Loaded(match (v.get("code").is_some(), v.get("message").is_some()) {
                (false, false) => Ok(()),
                (true, true) => Err((o.str("code")?, o.str("message")?)),
                _ => {
                    return Err(
                        bad("loaded: give `code` and `message` together (refused), or neither (swapped)".into()),
                    )
                }
            })
        }
        other => {
            let shown: String = other.chars().take(40).collect();
            return Err(bad(format!(
                "input: `op` must be tick, tick_reply, artifact_len, artifact, loaded or swapped (got {shown:?})"
            )));
        }
    })
}

/// A refusal as the status record and the answers carry it.
pub fn refusal_text(r: &Refusal) -> String {
    let mut out = Vec::with_capacity(160);
    out.extend_from_slice(b"{\"sha256\":");
    match &r.sha256 {
        Some(s) => string(&mut out, s),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"code\":");
    string(&mut out, &r.code);
    out.extend_from_slice(b",\"message\":");
    string(&mut out, &r.message);
    out.extend_from_slice(format!(",\"at_ms\":{}}}", r.at_ms).as_bytes());
    String::from_utf8(out).unwrap_or_default()
}

fn answer_text(state: &str, s: &Step) -> String {
    let mut out = Vec::with_capacity(state.len() + 256);
    out.extend_from_slice(b"{\"state\":");
    string(&mut out, state);
    out.extend_from_slice(b",\"call\":");
    let pair = |out: &mut Vec<u8>, op: &str, k: &str, v: &str| {
        out.extend_from_slice(b"{\"op\":");
        string(out, op);
        out.push(b',');
        string(out, k);
        out.push(b':');
        string(out, v);
    };
    match &s.call {
        None => out.extend_from_slice(b"null"),
        Some(Call::Tick { replica_id, status }) => {
            pair(&mut out, "tick", "replica_id", replica_id);
            out.extend_from_slice(b",\"status\":");
            string(&mut out, status);
            out.push(b'}');
        }
        Some(Call::ArtifactLen { sha256, key }) | Some(Call::Artifact { sha256, key }) => {
            let op = if matches!(s.call, Some(Call::ArtifactLen { .. })) { "artifact_len" } else { "artifact" };
            pair(&mut out, op, "sha256", sha256);
            out.extend_from_slice(b",\"key\":");
            string(&mut out, key);
            out.push(b'}');
        }
        Some(Call::Load { sha256 }) => {
            pair(&mut out, "load", "sha256", sha256);
            out.push(b'}');
        }
    }
    out.extend_from_slice(b",\"log\":[");
    for (i, line) in s.log.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(&mut out, line);
    }
    out.extend_from_slice(b"],\"refused\":");
    match &s.refused {
        None => out.extend_from_slice(b"null"),
        Some(r) => out.extend_from_slice(refusal_text(r).as_bytes()),
    }
    out.extend_from_slice(b",\"swapped\":");
    match &s.swapped {
        None => out.extend_from_slice(b"null"),
        Some(sha) => string(&mut out, sha),
    }
    out.push(b'}');
    String::from_utf8(out).unwrap_or_default()
}

// The state text: {"v":1, identity, keys, the follower's fields, pending}.

fn state_text(f: &Follower) -> String {
    let s = |x: &str| Value::String(x.to_string());
    let opt = |x: &Option<String>| x.as_deref().map_or(Value::Null, s);
    let keys = f.trusted.keys().iter().map(|(id, raw)| Value::Array(alloc::vec![s(id), s(&super::record::hex(raw))]));
    let refusal = f.refusal.as_ref().map_or(Value::Null, |r| {
        Value::Object(alloc::vec![
            ("sha256".into(), opt(&r.sha256)),
            ("code".into(), s(&r.code)),
            ("message".into(), s(&r.message)),
            ("at_ms".into(), Value::Int(r.at_ms)),
        ])
    });
    let pending = f.pending.as_ref().map_or(Value::Null, |p| {
        Value::Object(alloc::vec![
            ("now_ms".into(), Value::Int(p.running.now_ms)),
            ("sha256".into(), s(&p.running.sha256)),
            ("document_version".into(), s(&p.running.document_version)),
            ("events".into(), Value::Int(p.running.events)),
            ("dead_letters".into(), Value::Int(p.running.dead_letters)),
            ("waiting".into(), s(super::follower::waiting_name(p.waiting))),
            ("epoch".into(), Value::Int(p.epoch)),
            ("want".into(), s(&p.want)),
        ])
    });
    to_text(&Value::Object(alloc::vec![
        ("v".into(), Value::Int(1)),
        ("replica_id".into(), s(&f.me.replica_id)),
        ("language".into(), s(&f.me.language)),
        ("host".into(), s(&f.me.host)),
        ("pid".into(), Value::Int(f.me.pid)),
        ("keys".into(), Value::Array(keys.collect())),
        ("settled".into(), Value::Int(f.settled)),
        ("refusal".into(), refusal),
        ("failing".into(), Value::Bool(f.failing)),
        ("bad_record".into(), opt(&f.bad_record)),
        ("since_ms".into(), Value::Int(f.since_ms)),
        ("base_events".into(), Value::Int(f.base_events)),
        ("base_dead_letters".into(), Value::Int(f.base_dead_letters)),
        ("pending".into(), pending),
    ]))
}

const STATE_FIELDS: [&str; 14] = [
    "v",
    "replica_id",
    "language",
    "host",
    "pid",
    "keys",
    "settled",
    "refusal",
    "failing",
    "bad_record",
    "since_ms",
    "base_events",
    "base_dead_letters",
    "pending",
];

fn read_state(text: &str) -> Result<Follower, RolloutError> {
    let v = parse("state", text)?;
    let o = Obj::new("state", &v, &STATE_FIELDS)?;
    if o.u64("v")? != 1 {
        return Err(bad("state: `v` must be 1 (a state text from rollout-open or rollout-step)".to_string()));
    }
    let me = Identity {
        replica_id: o.str("replica_id")?,
        language: o.str("language")?,
        host: o.str("host")?,
        pid: o.u64("pid")?,
    };
    let Some(Value::Array(items)) = o.opt("keys") else { return Err(bad("state: `keys` must be an array".into())) };
    let mut keys = Vec::with_capacity(items.len());
    for item in items {
        let key = match item {
            Value::Array(pair) if pair.len() == 2 => pair[0].as_str().zip(pair[1].as_str().and_then(unhex32)),
            _ => None,
        };
        let (id, raw) = key.ok_or_else(|| bad("state: a key must be [key id, 64 hex digits]".into()))?;
        keys.push((id.to_string(), raw));
    }
    let refusal = match o.opt("refusal") {
        None => None,
        Some(r) => {
            let r = Obj::new("state.refusal", r, &["sha256", "code", "message", "at_ms"])?;
            Some(Refusal {
                sha256: r.opt_str("sha256")?,
                code: r.str("code")?,
                message: r.str("message")?,
                at_ms: r.u64("at_ms")?,
            })
        }
    };
    let pending = match o.opt("pending") {
        None => None,
        Some(p) => {
            let fields = ["now_ms", "sha256", "document_version", "events", "dead_letters", "waiting", "epoch", "want"];
            let p = Obj::new("state.pending", p, &fields)?;
            let name = p.str("waiting")?;
            let waiting = [Waiting::TickReply, Waiting::ArtifactLen, Waiting::Artifact, Waiting::Loaded]
                .into_iter()
                .find(|w| super::follower::waiting_name(*w) == name)
                .ok_or_else(|| bad("state.pending: `waiting` is not a follower call".into()))?;
            let running = Running {
                now_ms: p.u64("now_ms")?,
                sha256: p.str("sha256")?,
                document_version: p.str("document_version")?,
                events: p.u64("events")?,
                dead_letters: p.u64("dead_letters")?,
            };
            let want = p.str("want")?;
            if waiting != Waiting::TickReply && !super::is_sha256(&want) {
                return Err(bad(
                    "state.pending: `want` is not a sha256 (a state text the follower did not write)".into()
                ));
            }
            Some(Pending { running, waiting, epoch: p.u64("epoch")?, want })
        }
    };
    Ok(Follower {
        me,
        trusted: TrustedKeys::from_raw(keys),
        settled: o.u64("settled")?,
        refusal,
        failing: o.bool("failing")?,
        bad_record: o.opt_str("bad_record")?,
        since_ms: o.u64("since_ms")?,
        base_events: o.u64("base_events")?,
        base_dead_letters: o.u64("base_dead_letters")?,
        pending,
        failed_now: false,
    })
}

fn unhex32(s: &str) -> Option<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (i, pair) in b.chunks(2).enumerate() {
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

/// The state text of `f` (tests build states through the follower, then change them).
#[cfg(test)]
pub(crate) fn step_state_for_tests(f: &Follower) -> String {
    state_text(f)
}
