//! Journal format 1 (docs/journal.md): the vectors of
//! `tests/vectors-journal/` through the real open path (lock, read, torn
//! tail cut, header) and the component's `resume` under each record's own
//! policy; the lock file's stale rule; the header, mode and round trip.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use retry_policy_core::{DeliveryState, Resumption};
use serde_json::Value;

use crate::journal::Journal;
use crate::journal_error::JournalError;
use crate::journal_lock::{hostname, lock_path};
use crate::journal_read::ComponentHasher;
use crate::store::{EventStore, Status};
use crate::tests::engine;

pub(crate) fn hasher() -> ComponentHasher {
    ComponentHasher::new(&engine()).expect("an instance of the policy artifact")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpd-journal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The cases of `file` (its `format` checked: `format`).
fn vectors_of(file: &str, format: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/vectors-journal").join(file);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["format"], format, "{file}: format");
    let cases = doc["cases"].as_array().expect("`cases`").clone();
    cases
}

fn vectors() -> Vec<Value> {
    vectors_of("journal.json", "webhook-retry-policy/journal-vectors 1")
}

fn only(v: &Value, allowed: &[&str], name: &str) {
    for k in v.as_object().expect("an object").keys() {
        assert!(allowed.contains(&k.as_str()), "case {name}: unknown field `{k}`");
    }
}

/// One case; `Err` says why it failed.
fn run_case(
    case: &Value,
    dir: &Path,
    inst: &mut retry_policy_host::PolicyInstance,
    format2: bool,
) -> Result<(), String> {
    let name = case["name"].as_str().unwrap_or("?");
    only(case, &["name", "lines", "now_ms", "expect"], name);
    let lines: String = case["lines"].as_array().ok_or("`lines`")?.iter().filter_map(Value::as_str).collect();
    let now_ms = case["now_ms"].as_u64().ok_or("`now_ms`")?;
    let expect = &case["expect"];
    let path = dir.join(format!("case-{:x}.journal", crate::journal_record::crc32(name.as_bytes())));
    std::fs::write(&path, &lines).unwrap();
    let got = Journal::open(&path, &mut hasher());
    if let Some(code) = expect.get("error") {
        only(expect, &["error", "line"], name);
        let e = got.err().ok_or("opened; expected an error")?;
        let want = (code.as_str(), expect["line"].as_u64().map(|l| l as usize));
        if (Some(e.code()), e.line()) != want {
            return Err(format!("got {e}; expected {want:?}"));
        }
        if std::fs::read_to_string(&path).unwrap() != lines {
            return Err("a refused journal was changed".into());
        }
        return Ok(());
    }
    only(expect, &["torn_bytes", "events"], name);
    let opened = got.map_err(|e| format!("refused: {e}"))?;
    let torn = expect["torn_bytes"].as_u64().ok_or("`torn_bytes`")?;
    if opened.torn_bytes != torn {
        return Err(format!("torn_bytes {} != {torn}", opened.torn_bytes));
    }
    let kept = &lines.as_bytes()[..lines.len() - torn as usize];
    let on_disk = std::fs::read(&path).unwrap();
    if !on_disk.starts_with(kept) || (kept.is_empty() != (on_disk.len() > kept.len())) {
        return Err("the file was not cut back to its good records (plus a header when empty)".into());
    }
    let mut got_events = BTreeMap::new();
    for (_, r) in &opened.events {
        let resume = if r.is_open() {
            let state = DeliveryState {
                event_id: r.event_id.clone(),
                endpoint_id: r.endpoint_id.clone(),
                attempt: r.attempts,
                max_attempts: r.max_attempts,
                first_attempted_at_ms: r.first_attempted_at_ms,
                credentials_refreshed: r.credentials_refreshed,
            };
            match inst.resume(&r.policy, &state, now_ms).map_err(|e| format!("resume {}: {e}", r.event_id))? {
                Resumption::Due => Value::from("due"),
                Resumption::Stop(st) => Value::from(st.reason.as_str()),
            }
        } else {
            Value::Null
        };
        let mut got = serde_json::json!({"status": r.status.as_str(), "attempts": r.attempts, "resume": resume});
        if format2 {
            got["held_ms"] = r.hold.held_ms.into();
            got["held_until_ms"] = r.hold.held_until_ms.into();
            got["replayed_as"] = r.hold.replayed_as.clone().into();
        }
        got_events.insert(r.event_id.clone(), got);
    }
    let want: BTreeMap<String, Value> = serde_json::from_value(expect["events"].clone()).map_err(|e| e.to_string())?;
    let event_fields: &[&str] = if format2 {
        &["status", "attempts", "resume", "held_ms", "held_until_ms", "replayed_as"]
    } else {
        &["status", "attempts", "resume"]
    };
    for (id, e) in &want {
        only(e, event_fields, &format!("{name} (event {id})"));
    }
    if got_events != want {
        return Err(format!("events {got_events:?}\n   expected {want:?}"));
    }
    Ok(())
}

#[test]
fn every_journal_vector_passes_through_the_open_path_and_resume() {
    let dir = temp("vectors");
    let mut inst = crate::shared::instance(&engine()).unwrap();
    let cases = vectors();
    let mut failed = Vec::new();
    for case in &cases {
        if let Err(why) = run_case(case, &dir, &mut inst, false) {
            failed.push(format!("{}: {why}", case["name"]));
        }
    }
    println!("journal vectors: {} of {} pass", cases.len() - failed.len(), cases.len());
    assert!(cases.len() >= 38, "the vector file holds {} cases", cases.len());
    assert!(failed.is_empty(), "failing cases:\n{}", failed.join("\n"));
}

#[test]
fn every_journal_format_2_vector_passes_through_the_open_path_and_resume() {
    let dir = temp("vectors2");
    let mut inst = crate::shared::instance(&engine()).unwrap();
    let cases = vectors_of("journal2.json", "webhook-retry-policy/journal-vectors 2");
    let mut failed = Vec::new();
    for case in &cases {
        if let Err(why) = run_case(case, &dir, &mut inst, true) {
            failed.push(format!("{}: {why}", case["name"]));
        }
    }
    println!("journal format 2 vectors: {} of {} pass", cases.len() - failed.len(), cases.len());
    assert!(cases.len() >= 30, "the vector file holds {} cases", cases.len());
    assert!(failed.is_empty(), "failing cases:\n{}", failed.join("\n"));
}

#[test]
fn a_new_journal_starts_with_its_header_and_is_private_to_its_owner() {
    let dir = temp("header");
    let j = dir.join("events.journal");
    drop(EventStore::with_journal(&j, &mut hasher()).unwrap());
    let text = std::fs::read_to_string(&j).unwrap();
    let (crc, json) = text.trim_end().split_once(' ').unwrap();
    assert_eq!(crc, format!("{:08x}", crate::journal_record::crc32(json.as_bytes())));
    let v: Value = serde_json::from_str(json).unwrap();
    assert_eq!(
        (v["v"].as_u64(), v["type"].as_str()),
        (Some(2), Some("header")),
        "a new journal starts with a v2 header (journal format 2)"
    );
    assert_eq!(std::fs::metadata(&j).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn a_record_written_is_read_back_equal_with_its_policy() {
    let dir = temp("roundtrip");
    let j = dir.join("events.journal");
    let ok = crate::endpoints::Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let (recs, _) = crate::tests::dispatch(
        crate::BudgetStore::local(),
        &crate::tests::doc(50),
        crate::tests::events(2, "r", &ok.url()),
    );
    let store = EventStore::with_journal(&j, &mut hasher()).unwrap();
    let mut with_body = recs[1].clone();
    with_body.body_b64 = Some("e30=".into());
    store.put(&recs[0]).unwrap();
    store.put(&with_body).unwrap();
    drop(store);
    let back = EventStore::read_journal(&j, &mut hasher()).unwrap();
    assert_eq!(back, vec![recs[0].clone(), with_body]);
    assert_eq!(back[0].policy.window_ms, 2000, "the admitted class policy travels with the event");
}

#[test]
fn a_lock_left_by_a_killed_writer_is_removed_and_a_live_or_foreign_one_is_refused() {
    let dir = temp("lock");
    let j = dir.join("events.journal");
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = gone.id();
    gone.wait().unwrap();
    let write_lock = |pid: u32, host: &str| {
        let body = serde_json::json!({"pid": pid, "host": host, "started_at_ms": 1});
        std::fs::write(lock_path(&j), body.to_string()).unwrap();
    };
    write_lock(dead_pid, &hostname());
    let store = EventStore::with_journal(&j, &mut hasher()).expect("a stale lock is removed");
    let held: Value = serde_json::from_str(&std::fs::read_to_string(lock_path(&j)).unwrap()).unwrap();
    assert_eq!(held["pid"].as_u64(), Some(u64::from(std::process::id())));
    drop(store);
    write_lock(dead_pid, "another-host.example");
    let e = EventStore::with_journal(&j, &mut hasher()).err().unwrap();
    assert!(matches!(&e, JournalError::Locked { holder } if holder.contains("another-host.example")), "{e}");
    write_lock(1, &hostname()); // pid 1 is alive
    assert_eq!(EventStore::with_journal(&j, &mut hasher()).err().unwrap().code(), "journal_locked");
}

#[test]
fn a_leftover_compact_file_is_deleted_at_open() {
    let dir = temp("compact-left");
    let j = dir.join("events.journal");
    let compact = dir.join("events.journal.compact");
    std::fs::write(&compact, "half a rewrite").unwrap();
    drop(EventStore::with_journal(&j, &mut hasher()).unwrap());
    assert!(!compact.exists());
}

#[test]
fn a_resumed_event_of_a_class_the_current_document_lacks_is_delivered_under_its_own_policy() {
    let broken = crate::endpoints::Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let ok = crate::endpoints::Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let (recs, _) = crate::tests::dispatch(
        crate::BudgetStore::local(),
        &crate::tests::doc(50),
        crate::tests::events(1, "b", &broken.url()),
    );
    // Admitted elsewhere as class `billing` (the fingerprint has no class
    // name), one attempt made, due now; this dispatcher's document has only `storm`.
    let now = crate::shared::now_ms();
    let mut rec = recs[0].clone();
    rec.class = "billing".into();
    rec.target = ok.url();
    (rec.status, rec.stop_reason, rec.dead_letter, rec.finished_at_ms) = (Status::Pending, None, None, 0);
    (rec.attempts, rec.first_attempted_at_ms, rec.deadline_ms, rec.next_attempt_at_ms) = (1, now, now + 2000, now);
    let d = crate::Dispatcher::start(
        engine(),
        &crate::tests::doc(50),
        &[],
        crate::BudgetStore::local(),
        EventStore::in_memory(),
        std::sync::Arc::new(crate::Metrics::default()),
        crate::tests::local_config(),
        vec![rec],
        Box::new(std::iter::empty()),
    )
    .expect("a resumed record's class need not be in the current document")
    .wait();
    let back = d.store().all();
    assert_eq!(back.len(), 1);
    assert_eq!((back[0].status, back[0].attempts, back[0].class.as_str()), (Status::Delivered, 2, "billing"));
}
