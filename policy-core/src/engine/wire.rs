//! The engine's inputs and actions as JSON (docs/engine.md "Wire"): what
//! crosses the component boundary in one batch per crossing, and what the
//! trace vectors (`tests/vectors/engine-*.json`) are written in. Strict:
//! an unknown field or a missing one is `invalid_input` naming it.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::io::{AttemptResult, Input, NewEvent, ReplayFilter, Resume, StoreAnswer};
use super::{Config, EngineError};
use crate::codec::Fields;
use crate::error::{ErrorCode, PolicyError};
use crate::journal::json_text::{self, to_text};
use crate::json::Value;

fn shape(field: &str, message: &str) -> EngineError {
    EngineError::Policy(PolicyError::new(ErrorCode::InvalidInput, field, message))
}

fn opt_string(f: &Fields<'_>, key: &str) -> Result<Option<String>, EngineError> {
    Ok(match f.opt(key) {
        Some(_) => Some(f.str(key)?.to_string()),
        None => None,
    })
}

fn opt_u64(f: &Fields<'_>, key: &str) -> Result<Option<u64>, EngineError> {
    Ok(match f.opt(key) {
        Some(_) => Some(f.u64(key)?),
        None => None,
    })
}

/// An engine config: `{document, max_in_flight?, max_events?, max_open?, max_endpoints?, memory_store?, skew_check?, dispatch?, journal?}`
/// (`document` an object, or its JSON text).
pub fn config(v: &Value) -> Result<Config, EngineError> {
    let f = Fields::new(
        v,
        &[
            "document",
            "max_in_flight",
            "max_events",
            "max_open",
            "max_endpoints",
            "memory_store",
            "skew_check",
            "dispatch",
            "journal",
        ],
    )?;
    let d = Config::default();
    let document = match f.req("document")? {
        Value::String(s) => s.clone(),
        other => to_text(other),
    };
    Ok(Config {
        document,
        max_in_flight: if f.opt("max_in_flight").is_some() { f.u32("max_in_flight")? } else { d.max_in_flight },
        max_events: opt_u64(&f, "max_events")?.unwrap_or(d.max_events),
        max_open: match opt_u64(&f, "max_open")? {
            Some(0) => return Err(shape("max_open", "at least 1 (absent: no bound but max_events)")),
            n => n,
        },
        max_endpoints: opt_u64(&f, "max_endpoints")?.map_or(d.max_endpoints, |n| n.min(1 << 20) as usize),
        memory_store: if f.opt("memory_store").is_some() { f.bool("memory_store")? } else { d.memory_store },
        skew_check: if f.opt("skew_check").is_some() { f.bool("skew_check")? } else { d.skew_check },
        dispatch: if f.opt("dispatch").is_some() { f.bool("dispatch")? } else { d.dispatch },
        journal: if f.opt("journal").is_some() { f.bool("journal")? } else { d.journal },
    })
}

/// One input: `{"now_ms": N, "op": ..., ...}` -> (`now_ms`, input).
pub fn input(v: &Value) -> Result<(u64, Input), EngineError> {
    let op = v.get("op").and_then(Value::as_str).ok_or_else(|| shape("op", "missing or not a string"))?;
    let fields: &[&str] = match op {
        "tick" | "drain" | "snapshot" => &["op", "now_ms"],
        "admit" => &["op", "now_ms", "event_id", "endpoint_id", "target", "class", "body_b64"],
        "result" => &["op", "now_ms", "event_id", "attempt", "status", "retry_after", "error_kind", "not_started"],
        "store" => &["op", "now_ms", "call_id", "reply", "failed"],
        "replay" => &["op", "now_ms", "endpoint_id", "stop_reason", "from_ms", "to_ms", "limit"],
        "resume" => &["op", "now_ms", "journal", "copy"],
        "swap" => &["op", "now_ms", "document"],
        _ => return Err(shape("op", "unknown op (tick, admit, result, store, drain, replay, resume, snapshot, swap)")),
    };
    let f = Fields::new(v, fields)?;
    let now_ms = f.u64("now_ms")?;
    let input = match op {
        "tick" => Input::Tick,
        "drain" => Input::Drain,
        "snapshot" => Input::Snapshot,
        "admit" => Input::Admit(NewEvent {
            event_id: f.str("event_id")?.to_string(),
            endpoint_id: f.str("endpoint_id")?.to_string(),
            target: f.str("target")?.to_string(),
            class: f.str("class")?.to_string(),
            body_b64: opt_string(&f, "body_b64")?,
        }),
        "result" => {
            let result = match (f.opt("status"), f.opt("error_kind"), f.opt("not_started")) {
                (Some(_), None, None) => AttemptResult::Response {
                    status: u16::try_from(f.u64("status")?).unwrap_or(u16::MAX),
                    retry_after: opt_string(&f, "retry_after")?,
                },
                (None, Some(_), None) if f.opt("retry_after").is_none() => {
                    AttemptResult::Transport { kind: f.str("error_kind")?.to_string() }
                }
                (None, None, Some(_)) if f.bool("not_started")? && f.opt("retry_after").is_none() => {
                    AttemptResult::NotStarted
                }
                _ => return Err(shape("", "a result has exactly one of status, error_kind, not_started: true")),
            };
            Input::Result { event_id: f.str("event_id")?.to_string(), attempt: f.u32("attempt")?, result }
        }
        "store" => {
            let answer = match (f.opt("reply"), f.opt("failed")) {
                (Some(Value::Array(items)), None) => {
                    let mut ints = Vec::with_capacity(items.len().min(16));
                    for (i, x) in items.iter().enumerate().take(64) {
                        ints.push(match x {
                            Value::Int(n) => i64::try_from(*n).unwrap_or(i64::MAX),
                            Value::NegInt(n) => *n,
                            _ => return Err(shape(&alloc::format!("reply[{i}]"), "not an integer")),
                        });
                    }
                    StoreAnswer::Reply(ints)
                }
                (None, Some(_)) if f.bool("failed")? => StoreAnswer::Failed,
                _ => return Err(shape("", "a store answer has exactly one of reply (integers) or failed: true")),
            };
            Input::Store { call_id: f.u64("call_id")?, answer }
        }
        "replay" => Input::Replay(ReplayFilter {
            endpoint_id: opt_string(&f, "endpoint_id")?,
            stop_reason: opt_string(&f, "stop_reason")?,
            from_ms: opt_u64(&f, "from_ms")?,
            to_ms: opt_u64(&f, "to_ms")?,
            limit: opt_u64(&f, "limit")?,
        }),
        "resume" => Input::Resume(Resume {
            journal: f.str("journal")?.as_bytes().to_vec(),
            copy: if f.opt("copy").is_some() { f.bool("copy")? } else { false },
        }),
        _ => Input::Swap(match f.req("document")? {
            Value::String(s) => s.clone(),
            other => to_text(other),
        }),
    };
    Ok((now_ms, input))
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// An error as JSON: `{"error": code, "message": text}`.
pub fn error(e: &EngineError) -> Value {
    obj(alloc::vec![("error", e.code().into()), ("message", e.to_string().as_str().into())])
}

/// A batch: every input of `inputs` (a JSON array) in order, then every
/// action: `{"outputs": [...], "errors": [{"index", "error", "message"}],
/// "timeout_ms": N | null}`. A refused input is reported by its index and
/// the batch goes on (each refusal changed nothing).
pub fn feed(engine: &mut super::Engine, inputs: &str) -> Result<String, EngineError> {
    let v = crate::json::parse(inputs)?;
    let Value::Array(items) = v else { return Err(shape("", "a batch is a JSON array of inputs")) };
    Ok(run(engine, items.iter().map(input)))
}

/// `resume` from the journal's raw bytes (a torn tail may end inside a
/// multibyte character, so they need not be UTF-8), answered as [`feed`].
pub fn resume(engine: &mut super::Engine, now_ms: u64, journal: &[u8]) -> String {
    let resume = Input::Resume(Resume { journal: journal.to_vec(), copy: false });
    run(engine, core::iter::once(Ok((now_ms, resume))))
}

fn run(engine: &mut super::Engine, inputs: impl Iterator<Item = Result<(u64, Input), EngineError>>) -> String {
    let mut out = Vec::with_capacity(1024);
    out.extend_from_slice(b"{\"outputs\":[");
    let mut first = true;
    let mut errors = Vec::new();
    for (index, item) in inputs.enumerate() {
        if let Err(e) = item.and_then(|(now_ms, i)| engine.handle(now_ms, i)) {
            errors.push(obj(alloc::vec![
                ("index", (index as u64).into()),
                ("error", e.code().into()),
                ("message", e.to_string().as_str().into()),
            ]));
        }
        while let Some(o) = engine.poll_output() {
            if !core::mem::replace(&mut first, false) {
                out.push(b',');
            }
            super::wire_out::write(&mut out, &o);
        }
    }
    out.extend_from_slice(b"],\"errors\":");
    json_text::write(&mut out, &Value::Array(errors));
    out.extend_from_slice(b",\"timeout_ms\":");
    json_text::write(&mut out, &engine.poll_timeout().map_or(Value::Null, Value::from));
    out.push(b'}');
    // Only UTF-8 was written: ASCII punctuation and the strings' own UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// An error as JSON text, for a boundary that answers errors as strings.
pub fn error_text(e: &EngineError) -> String {
    to_text(&error(e))
}
