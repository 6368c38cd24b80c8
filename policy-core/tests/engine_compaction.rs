//! The engine compacts the journal it writes (docs/journal.md
//! "Compaction", docs/engine.md section 7): past 1024 records and more than
//! twice the live ones, one `journal_compact` with the live records, and the
//! compacted text resumes to the same open events.

use retry_policy_core::engine::{AttemptResult, Config, Engine, Input, NewEvent, Output, Resume};

const DOC: &str = r#"{"version": "c", "classes": {"n": {"window_ms": 60000, "hard_cap": 4,
  "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"}}}}"#;

fn engine() -> Engine {
    Engine::new(Config { document: DOC.into(), memory_store: true, ..Config::default() }).unwrap()
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

/// Every output, with the journal as the host keeps it (appended, cut, replaced).
fn drain_outputs(e: &mut Engine, journal: &mut String, compactions: &mut u32, sends: &mut Vec<(String, u32)>) {
    while let Some(o) = e.poll_output() {
        match o {
            Output::Journal { line } => journal.push_str(&line),
            Output::JournalCompact { journal: text } => {
                *journal = text;
                *compactions += 1;
            }
            Output::Send(s) => sends.push((s.event_id, s.attempt)),
            _ => {}
        }
    }
}

#[test]
fn a_long_run_is_compacted_to_its_live_records_and_the_compacted_journal_resumes_the_same_events() {
    let mut e = engine();
    let (mut journal, mut compactions, mut sends) = (String::new(), 0, Vec::new());
    let mut now = 1_000;
    // 600 events: every third fails once (a retry the budget allows stays pending, the
    // rest of them are dead letters), the others are delivered.
    for i in 0..600 {
        let id = format!("ev-{i}");
        e.handle(now, admit(&id)).unwrap();
        drain_outputs(&mut e, &mut journal, &mut compactions, &mut sends);
        let status = if i % 3 == 0 { 503 } else { 200 };
        e.handle(
            now,
            Input::Result { event_id: id, attempt: 1, result: AttemptResult::Response { status, retry_after: None } },
        )
        .unwrap();
        drain_outputs(&mut e, &mut journal, &mut compactions, &mut sends);
        now += 1;
    }
    assert!(compactions >= 1, "2 records per delivered event (first attempt, delivered) pass 1024 records");
    let lines = journal.lines().count();
    assert!(lines <= 1024, "the journal stays bounded: {lines} lines");
    let open: Vec<String> = {
        let mut v: Vec<String> = e.events().filter(|x| x.is_open()).map(|x| x.event_id.clone()).collect();
        v.sort();
        v
    };
    assert!(open.len() >= 50, "retries the budget allowed stay pending: {}", open.len());
    let mut again = engine();
    again.handle(now, Input::Resume(Resume { journal: journal.into_bytes(), copy: false })).unwrap();
    let mut resumed = Vec::new();
    while let Some(o) = again.poll_output() {
        if let Output::Resumed { ids } = o {
            resumed = ids;
        }
    }
    resumed.sort();
    assert_eq!(resumed, open, "the compacted journal holds every open event");
}

#[test]
fn an_engine_without_a_journal_never_compacts_nor_writes_a_line() {
    let mut e =
        Engine::new(Config { document: DOC.into(), memory_store: true, journal: false, ..Config::default() }).unwrap();
    for i in 0..400 {
        e.handle(i, admit(&format!("ev-{i}"))).unwrap();
        while let Some(o) = e.poll_output() {
            assert!(!matches!(o, Output::Journal { .. } | Output::JournalCompact { .. }), "{o:?}");
        }
    }
}
