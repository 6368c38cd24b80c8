//! The journal codec (`retry_policy_core::journal`, docs/journal.md)
//! against every case of tests/vectors-journal/journal.json (format 1) and
//! journal2.json (format 2): `recover` on the case's bytes, then the
//! contract's `resume` on each open record's own policy at the case's
//! `now_ms`. Unknown fields in a file, a case or an expectation are
//! refused; failing cases are printed by name.

use std::collections::BTreeMap;
use std::path::PathBuf;

use retry_policy_core::journal::{encode_event, encode_header, recover, Status};
use retry_policy_core::{resume, Resumption};
use serde_json::{json, Value};

fn load(file: &str, format: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors-journal").join(file);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    only(&doc, &["format", "spec", "regenerate", "cases"], file);
    assert_eq!(doc["format"], format, "{file}: format");
    doc["cases"].as_array().unwrap_or_else(|| panic!("{file}: `cases` is a list")).clone()
}

fn only(v: &Value, allowed: &[&str], whose: &str) {
    let keys = v.as_object().unwrap_or_else(|| panic!("{whose}: not an object")).keys();
    for k in keys {
        assert!(allowed.contains(&k.as_str()), "{whose}: unknown field `{k}`");
    }
}

/// The case's file content.
fn bytes_of(case: &Value) -> Vec<u8> {
    let lines = case["lines"].as_array().expect("`lines` is a list");
    lines.iter().map(|l| l.as_str().expect("a line is a string")).collect::<String>().into_bytes()
}

/// One case; `Err` says how it failed.
fn run_case(case: &Value, format2: bool) -> Result<(), String> {
    let name = case["name"].as_str().unwrap_or("?");
    only(case, &["name", "lines", "now_ms", "expect"], name);
    let bytes = bytes_of(case);
    let now_ms = case["now_ms"].as_u64().ok_or("`now_ms`")?;
    let expect = &case["expect"];
    let got = recover(&bytes);
    if let Some(code) = expect.get("error") {
        only(expect, &["error", "line"], name);
        let e = got.err().ok_or("recovered; expected an error")?;
        let want = (code.as_str().ok_or("`error`")?, expect["line"].as_u64().ok_or("`line`")?);
        if (e.code.as_str(), e.line) != want {
            return Err(format!("got {e}; expected {want:?}"));
        }
        return Ok(());
    }
    only(expect, &["torn_bytes", "events"], name);
    let r = got.map_err(|e| format!("refused: {e}"))?;
    let torn = expect["torn_bytes"].as_u64().ok_or("`torn_bytes`")?;
    if (r.torn_bytes, r.good_len) != (torn, bytes.len() as u64 - torn) {
        return Err(format!("torn_bytes {} good_len {}; expected torn_bytes {torn}", r.torn_bytes, r.good_len));
    }
    let again = recover(&bytes[..r.good_len as usize]).map_err(|e| format!("the good prefix is refused: {e}"))?;
    if again.torn_bytes != 0 || again.events != r.events || again.records != r.records {
        return Err("the good prefix does not read back to the same state".into());
    }
    let mut got_events = BTreeMap::new();
    for rec in &r.events {
        let resumed = if rec.is_open() {
            match resume(&rec.policy, &rec.delivery_state(), now_ms).map_err(|e| format!("{}: {e}", rec.event_id))? {
                Resumption::Due => json!("due"),
                Resumption::Stop(s) => json!(s.reason.as_str()),
            }
        } else {
            Value::Null
        };
        let mut got = json!({"status": rec.status.as_str(), "attempts": rec.attempts, "resume": resumed});
        if format2 {
            got["held_ms"] = rec.held_ms.into();
            got["held_until_ms"] = rec.held_until_ms.into();
            got["replayed_as"] = rec.replayed_as.clone().into();
        }
        got_events.insert(rec.event_id.clone(), got);
    }
    let fields: &[&str] = if format2 {
        &["status", "attempts", "resume", "held_ms", "held_until_ms", "replayed_as"]
    } else {
        &["status", "attempts", "resume"]
    };
    let want: BTreeMap<String, Value> =
        serde_json::from_value(expect["events"].clone()).map_err(|e| format!("`events`: {e}"))?;
    for (id, e) in &want {
        only(e, fields, &format!("{name} (event {id})"));
    }
    if got_events != want {
        return Err(format!("events {got_events:?}\n   expected {want:?}"));
    }
    Ok(())
}

fn run_file(file: &str, format: &str, format2: bool) -> usize {
    let cases = load(file, format);
    let failed: Vec<String> =
        cases.iter().filter_map(|c| run_case(c, format2).err().map(|why| format!("{}: {why}", c["name"]))).collect();
    println!("{file}: {} of {} cases pass", cases.len() - failed.len(), cases.len());
    assert!(failed.is_empty(), "failing cases:\n{}", failed.join("\n"));
    cases.len()
}

#[test]
fn every_format_1_journal_vector_recovers_and_resumes_as_expected() {
    assert_eq!(run_file("journal.json", "webhook-retry-policy/journal-vectors 1", false), 41);
}

#[test]
fn every_format_2_journal_vector_recovers_and_resumes_as_expected() {
    assert_eq!(run_file("journal2.json", "webhook-retry-policy/journal-vectors 2", true), 32);
}

/// Every complete v2 event line of a readable case, read alone after a
/// header and written again, is the same line byte for byte (the vectors
/// were written by another language's writer: the spelling is shared).
#[test]
fn every_v2_event_line_of_the_vectors_is_written_back_byte_for_byte() {
    let header = encode_header(1_796_180_876_011);
    let (mut compared, mut v2_lines) = (0, 0);
    for (file, format) in [
        ("journal.json", "webhook-retry-policy/journal-vectors 1"),
        ("journal2.json", "webhook-retry-policy/journal-vectors 2"),
    ] {
        for case in load(file, format) {
            if case["expect"].get("error").is_some() {
                continue;
            }
            for line in case["lines"].as_array().unwrap().iter().skip(1).filter_map(Value::as_str) {
                if line.ends_with('\n') && line.contains("{\"v\":2,\"type\":\"event\"") {
                    v2_lines += 1;
                }
                let Ok(r) = recover(format!("{header}{line}").as_bytes()) else { continue };
                let [rec] = r.events.as_slice() else { continue };
                if rec.version == 2 && r.torn_bytes == 0 {
                    assert_eq!(encode_event(rec), line, "{}", case["name"]);
                    compared += 1;
                }
            }
        }
    }
    assert!(v2_lines > 0 && compared == v2_lines, "{compared} of {v2_lines} complete v2 event lines compared");
    println!("{compared} of {v2_lines} v2 vector lines written back byte for byte");
}

/// A v1 record reads back, written as v2, to the same record (its version 2).
#[test]
fn a_v1_record_is_rewritten_as_an_equal_v2_record() {
    let case = load("journal.json", "webhook-retry-policy/journal-vectors 1")
        .into_iter()
        .find(|c| c["name"] == "one pending event is due")
        .expect("the case");
    let r = recover(&bytes_of(&case)).unwrap();
    let mut rec = r.events[0].clone();
    assert_eq!((rec.version, rec.status), (1, Status::Pending));
    let again = recover(format!("{}{}", encode_header(1), encode_event(&rec)).as_bytes()).unwrap();
    rec.version = 2;
    assert_eq!(again.events, vec![rec]);
    assert_eq!(again.header_version, Some(2));
}
