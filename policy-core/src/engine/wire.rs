//! The engine's inputs and actions as JSON (docs/engine.md "Wire"): what
//! crosses the component boundary in one batch per crossing, and what the
//! trace vectors (`tests/vectors/engine-*.json`) are written in. Strict:
//! an unknown field or a missing one is `invalid_input` naming it.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::io::{AttemptResult, Input, NewEvent, Output, ReplayFilter, Resume, Send, StoreAnswer};
use super::{Config, EngineError};
use crate::codec::{dead_letter_to_value, Fields};
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

fn opt(s: &Option<String>) -> Value {
    s.as_deref().map_or(Value::Null, Value::from)
}

fn send(s: &Send) -> Value {
    obj(alloc::vec![
        ("action", "send".into()),
        ("event_id", s.event_id.as_str().into()),
        ("attempt", s.attempt.into()),
        ("endpoint_id", s.endpoint_id.as_str().into()),
        ("target", s.target.as_str().into()),
        ("body_b64", opt(&s.body_b64)),
        ("first_attempted_at_ms", s.first_attempted_at_ms.into()),
        ("start_before_ms", s.start_before_ms.into()),
        ("refresh_credentials", s.refresh_credentials.into()),
        ("probe", s.probe.into()),
    ])
}

/// One action as JSON (`{"action": ..., ...}`).
pub fn output(o: &Output) -> Value {
    match o {
        Output::Journal { line } => obj(alloc::vec![("action", "journal".into()), ("line", line.as_str().into())]),
        Output::JournalTruncate { keep_bytes } => {
            obj(alloc::vec![("action", "journal_truncate".into()), ("keep_bytes", (*keep_bytes).into())])
        }
        Output::Send(s) => send(s),
        Output::StoreCall { call_id, key, argv } => obj(alloc::vec![
            ("action", "store_call".into()),
            ("call_id", (*call_id).into()),
            ("key", key.as_str().into()),
            ("argv", Value::Array(argv.iter().map(|a| a.as_str().into()).collect())),
        ]),
        Output::Delivered { event_id, attempts } => obj(alloc::vec![
            ("action", "delivered".into()),
            ("event_id", event_id.as_str().into()),
            ("attempts", (*attempts).into()),
        ]),
        Output::DeadLetter { dead_letter, disable_endpoint, held_ms } => obj(alloc::vec![
            ("action", "dead_letter".into()),
            ("dead_letter", dead_letter_to_value(dead_letter)),
            ("disable_endpoint", (*disable_endpoint).into()),
            ("held_ms", (*held_ms).into()),
        ]),
        Output::Hold { event_id, until_ms, reason } => obj(alloc::vec![
            ("action", "hold".into()),
            ("event_id", event_id.as_str().into()),
            ("until_ms", (*until_ms).into()),
            ("reason", reason.as_str().into()),
        ]),
        Output::Count { name, label, delta } => obj(alloc::vec![
            ("action", "count".into()),
            ("name", (*name).into()),
            ("label", label.as_ref().map_or(Value::Null, |(k, v)| obj(alloc::vec![(*k, v.as_str().into())]))),
            ("delta", (*delta).into()),
        ]),
        Output::Gauge { name, value } => {
            obj(alloc::vec![("action", "gauge".into()), ("name", (*name).into()), ("value", (*value).into())])
        }
        Output::Replayed { replayed, already_replayed, skipped_no_class, ids } => obj(alloc::vec![
            ("action", "replayed".into()),
            ("replayed", (*replayed).into()),
            ("already_replayed", (*already_replayed).into()),
            ("skipped_no_class", (*skipped_no_class).into()),
            ("ids", Value::Array(ids.iter().map(|i| i.as_str().into()).collect())),
        ]),
        Output::Drained => obj(alloc::vec![("action", "drained".into())]),
        Output::Resumed { ids } => obj(alloc::vec![
            ("action", "resumed".into()),
            ("ids", Value::Array(ids.iter().map(|i| i.as_str().into()).collect())),
        ]),
        Output::JournalCompact { journal } => {
            obj(alloc::vec![("action", "journal_compact".into()), ("journal", journal.as_str().into())])
        }
        Output::Snapshot { journal } => {
            obj(alloc::vec![("action", "snapshot".into()), ("journal", journal.as_str().into())])
        }
        Output::Warn { event_id, message } => obj(alloc::vec![
            ("action", "warn".into()),
            ("event_id", opt(event_id)),
            ("message", message.as_str().into()),
        ]),
    }
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

/// Append one action's JSON text to `out`. The actions that carry journal
/// text (`journal`, `journal_compact`, `snapshot`: most of a batch's bytes)
/// are written straight from their string, without first copying it into a
/// JSON value; the others through [`output`].
fn write_output(out: &mut Vec<u8>, o: &Output) {
    let (action, field, text) = match o {
        Output::Journal { line } => ("journal", "line", line),
        Output::JournalCompact { journal } => ("journal_compact", "journal", journal),
        Output::Snapshot { journal } => ("snapshot", "journal", journal),
        other => return json_text::write(out, &output(other)),
    };
    out.extend_from_slice(b"{\"action\":\"");
    out.extend_from_slice(action.as_bytes());
    out.extend_from_slice(b"\",\"");
    out.extend_from_slice(field.as_bytes());
    out.extend_from_slice(b"\":");
    json_text::string(out, text);
    out.push(b'}');
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
            write_output(&mut out, &o);
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
