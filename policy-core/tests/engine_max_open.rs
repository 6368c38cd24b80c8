//! `max_open` (docs/engine.md section 1): an admission past it is
//! `at_capacity` and changes nothing; `resume` is not bounded by it; `0` is
//! not a bound.

use retry_policy_core::engine::{wire, Config, Engine, EngineError, Input, NewEvent, Output, Resume};

const DOC: &str = r#"{"version": "m", "classes": {"n": {"window_ms": 60000, "hard_cap": 4,
  "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"}}}}"#;
const T: u64 = 1_800_000_000_000;

fn engine(max_open: Option<u64>) -> Engine {
    Engine::new(Config { document: DOC.into(), memory_store: true, max_open, ..Config::default() }).unwrap()
}

fn admit(id: &str) -> Input {
    Input::Admit(NewEvent {
        event_id: id.into(),
        endpoint_id: "ep".into(),
        target: "https://example.com/in".into(),
        class: "n".into(),
        body_b64: None,
    })
}

fn journal(e: &mut Engine) -> String {
    let mut text = String::new();
    while let Some(o) = e.poll_output() {
        if let Output::Journal { line } = o {
            text.push_str(&line);
        }
    }
    text
}

#[test]
fn an_admission_past_max_open_is_at_capacity_and_writes_nothing() {
    let mut e = engine(Some(2));
    e.handle(T, admit("a")).unwrap();
    e.handle(T, admit("b")).unwrap();
    journal(&mut e);
    let refused = e.handle(T, admit("c")).unwrap_err();
    assert_eq!(refused, EngineError::AtCapacity { max_open: 2 });
    assert_eq!(refused.to_string(), "at_capacity: 2 open events");
    assert!(e.poll_output().is_none(), "no action for a refused admission");
}

#[test]
fn a_journal_resumed_past_max_open_is_taken_whole_and_admissions_wait() {
    let mut first = engine(None);
    for id in ["a", "b", "c"] {
        first.handle(T, admit(id)).unwrap();
    }
    let text = journal(&mut first);
    let mut e = engine(Some(1));
    e.handle(T + 10, Input::Resume(Resume { journal: text.into_bytes(), copy: false })).unwrap();
    assert_eq!(e.handle(T + 10, admit("d")).unwrap_err().code(), "at_capacity");
}

#[test]
fn a_config_with_max_open_zero_is_invalid_input() {
    let v = retry_policy_core::json::parse(&format!(r#"{{"document":{DOC},"max_open":0}}"#)).unwrap();
    assert_eq!(wire::config(&v).unwrap_err().code(), "invalid_input");
    let v = retry_policy_core::json::parse(&format!(r#"{{"document":{DOC},"max_open":3}}"#)).unwrap();
    assert_eq!(wire::config(&v).unwrap().max_open, Some(3));
}
