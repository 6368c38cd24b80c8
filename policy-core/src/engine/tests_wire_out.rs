//! The direct writer against the value each action used to be built as and
//! printed (the reference kept here): the same text for every action.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::write;
use crate::codec::dead_letter_to_value;
use crate::decide::{DeadLetter, StopReason};
use crate::engine::io::{Output, Send};
use crate::health::HoldReason;
use crate::journal::json_text::to_text;
use crate::json::Value;

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
fn output(o: &Output) -> Value {
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

fn every_action() -> Vec<Output> {
    let send = |body: Option<&str>| {
        Output::Send(Send {
            event_id: "e\"1".into(),
            attempt: 3,
            endpoint_id: "ep/é".into(),
            target: "https://example.com/h?a=1&b=\\".into(),
            body_b64: body.map(String::from),
            first_attempted_at_ms: 1_700_000_000_000,
            start_before_ms: u64::MAX,
            refresh_credentials: true,
            probe: false,
        })
    };
    let dl = DeadLetter {
        event_id: "e2".into(),
        endpoint_id: "ep".into(),
        attempts: 7,
        elapsed_ms: 0,
        stop_reason: StopReason::RetryWindowElapsed,
    };
    alloc::vec![
        Output::Journal { line: "1234 {\"a\":\"b\\n\u{1}\"}".into() },
        Output::JournalCompact { journal: "l1\nl2\n".into() },
        Output::Snapshot { journal: String::new() },
        Output::JournalTruncate { keep_bytes: 42 },
        send(None),
        send(Some("eyJ9")),
        Output::StoreCall { call_id: 9, key: "rp:{ep}".into(), argv: alloc::vec!["1".into(), "0.5".into()] },
        Output::StoreCall { call_id: 0, key: String::new(), argv: Vec::new() },
        Output::Delivered { event_id: "e".into(), attempts: 1 },
        Output::DeadLetter { dead_letter: dl, disable_endpoint: true, held_ms: 5 },
        Output::Hold { event_id: "e".into(), until_ms: 10, reason: HoldReason::ReleasePacing },
        Output::Count { name: "webhook_attempts_total", label: Some(("outcome", "2xx".into())), delta: 2 },
        Output::Count { name: "webhook_x_total", label: None, delta: 0 },
        Output::Gauge { name: "webhook_open", value: 3 },
        Output::Replayed {
            replayed: 1,
            already_replayed: 2,
            skipped_no_class: 3,
            ids: alloc::vec!["a".into(), "b".into()]
        },
        Output::Replayed { replayed: 0, already_replayed: 0, skipped_no_class: 0, ids: Vec::new() },
        Output::Drained,
        Output::Resumed { ids: alloc::vec!["x".into()] },
        Output::Warn { event_id: None, message: "m\t".into() },
        Output::Warn { event_id: Some("e".into()), message: String::new() },
    ]
}

#[test]
fn every_action_is_written_as_its_value_was_printed() {
    for o in every_action() {
        let mut out = Vec::new();
        write(&mut out, &o);
        assert_eq!(String::from_utf8(out).unwrap(), to_text(&output(&o)), "{o:?}");
    }
}
