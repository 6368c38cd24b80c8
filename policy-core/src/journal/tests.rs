//! The codec's own properties: every record written reads back equal,
//! bad bytes of any size give a typed error or a torn tail (never a
//! panic), and compaction keeps exactly the live events.

extern crate std;

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};

use base64::Engine as _;
use proptest::prelude::*;

use super::*;
use crate::backoff::{Backoff, Jitter};
use crate::budget::Budget;
use crate::compiled::policy_hash_hex;
use crate::decide::{DeadLetter, Policy, StopReason};
use crate::health::{Health, HoldReason};

fn policy() -> Policy {
    Policy {
        backoff: Backoff { base_ms: 2_000, factor: 2.0, cap_ms: 300_000, jitter: Jitter::Full },
        window_ms: 900_000,
        hard_cap: 16,
        budget: Budget::default(),
    }
}

fn pending(id: &str, health: Option<Health>) -> EventRecord {
    let policy = policy();
    EventRecord {
        version: 2,
        event_id: id.into(),
        endpoint_id: "ep-1".into(),
        target: "https://hooks.example.com/x?token=t".into(),
        class: "notification".into(),
        policy_version: "2026-11-30".into(),
        policy_hash: policy_hash_hex(&policy, health.as_ref()),
        policy,
        health,
        first_attempted_at_ms: 1_796_180_876_016,
        deadline_ms: 1_796_181_776_016,
        max_attempts: 13,
        offsets_ms: vec![0, 1000, 3000],
        attempts: 1,
        credentials_refreshed: false,
        next_attempt_at_ms: 1_796_180_877_016,
        status: Status::Pending,
        last_outcome: "503".into(),
        stop_reason: None,
        dead_letter: None,
        disable_endpoint: false,
        finished_at_ms: 0,
        body_b64: Some("eyJ9".into()),
        held_until_ms: 0,
        hold_reason: None,
        held_since_ms: 0,
        held_ms: 0,
        needs_reserve: false,
        wake_refusals: 0,
        replay_of: None,
        replayed_dead_letter: None,
        replayed_as: None,
    }
}

fn dead_letter(id: &str) -> DeadLetter {
    DeadLetter {
        event_id: id.into(),
        endpoint_id: "ep-1".into(),
        attempts: 3,
        elapsed_ms: 7_000,
        stop_reason: StopReason::MaxAttemptsExhausted,
    }
}

fn dead(id: &str) -> EventRecord {
    EventRecord {
        status: Status::DeadLettered,
        stop_reason: Some(StopReason::MaxAttemptsExhausted),
        dead_letter: Some(dead_letter(id)),
        finished_at_ms: 1_796_180_883_016,
        attempts: 3,
        ..pending(id, None)
    }
}

fn journal(records: &[EventRecord]) -> String {
    let mut text = encode_header(1_796_180_876_011);
    for r in records {
        text.push_str(&encode_event(r));
    }
    text
}

#[test]
fn a_record_with_every_field_set_reads_back_equal() {
    let mut held = pending("ev-\"quoted\"\n\u{1}é☃", Some(Health::default()));
    held.status = Status::Held;
    held.hold_reason = Some(HoldReason::BudgetRefused);
    held.held_until_ms = 1_796_180_890_000;
    held.held_since_ms = 1_796_180_880_000;
    held.held_ms = 1_200;
    held.needs_reserve = true;
    held.wake_refusals = 2;
    held.credentials_refreshed = true;
    held.replay_of = Some("ev-d".into());
    held.replayed_dead_letter = Some(dead_letter("ev-d"));
    held.body_b64 = None;
    let mut no_circuit = pending("ev-nc", Some(Health { circuit: None, ..Health::default() }));
    no_circuit.policy_hash = policy_hash_hex(&no_circuit.policy, no_circuit.health.as_ref());
    let mut replayed = dead("ev-d");
    replayed.replayed_as = Some(String::from("ev-\"quoted\"\n\u{1}é☃"));
    let records = [held, no_circuit, replayed];
    let text = journal(&records);
    let r = recover(text.as_bytes()).unwrap();
    assert_eq!(r.events, records);
    assert_eq!((r.created_at_ms, r.header_version, r.records, r.torn_bytes), (Some(1_796_180_876_011), Some(2), 4, 0));
    assert_eq!(r.good_len, text.len() as u64);
    // Byte-stable: the same record always gives the same line.
    assert_eq!(journal(&r.events), text);
}

#[test]
fn a_record_whose_one_class_document_exceeds_a_mebibyte_is_refused_as_the_component_would() {
    let mut rec = pending("ev-1", None);
    rec.policy_version = "v".repeat(1 << 20);
    let e = recover(journal(&[rec]).as_bytes()).unwrap_err();
    assert_eq!((e.code, e.line, e.field.as_str()), (JournalErrorCode::RecordInvalid, 2, "policy"));
    assert!(e.message.contains("document_too_large"), "{e}");
}

#[test]
fn an_empty_file_and_a_torn_header_are_a_new_journal() {
    for bytes in [&b""[..], b"88eb83d4 {\"v\":1,\"type\":\"header"] {
        let r = recover(bytes).unwrap();
        assert_eq!((r.created_at_ms, r.header_version, r.records, r.good_len), (None, None, 0, 0));
        assert_eq!(r.torn_bytes, bytes.len() as u64);
    }
}

#[test]
fn an_error_names_its_line_and_field() {
    let mut text = journal(&[pending("ev-1", None)]);
    text = text.replace("\"hard_cap\":16", "\"hard_cap\":16.0");
    // The CRC no longer matches: the last line is torn, not refused.
    assert_eq!(recover(text.as_bytes()).unwrap().torn_bytes, text.lines().nth(1).unwrap().len() as u64 + 1);
    let bad = text.lines().nth(1).unwrap().split_once(' ').unwrap().1;
    let line = format!("{:08x} {bad}\n", line::crc32(bad.as_bytes()));
    let e = recover(format!("{}{line}", encode_header(1)).as_bytes()).unwrap_err();
    assert_eq!((e.code, e.line, e.field.as_str()), (JournalErrorCode::RecordInvalid, 2, "policy.hard_cap"));
    assert_eq!(format!("{e}"), "journal_record_invalid: line 2: `policy.hard_cap`: must be a non-negative integer");
}

#[test]
fn a_ten_megabyte_line_is_read_or_refused_in_linear_time_without_a_panic() {
    let big = "A".repeat(10 << 20);
    let mut rec = pending("ev-big", None);
    rec.body_b64 = Some(big.clone());
    let text = journal(&[rec.clone(), pending("ev-2", None)]);
    assert_eq!(recover(text.as_bytes()).unwrap().events[0], rec);
    // Not JSON, before the last line: corrupt; as the last line: torn.
    let junk = format!("{}00000000 {big}\n{}", encode_header(1), encode_event(&pending("ev-2", None)));
    let e = recover(junk.as_bytes()).unwrap_err();
    assert_eq!((e.code, e.line), (JournalErrorCode::Corrupt, 2));
    let tail = format!("{}{big}", encode_header(1));
    assert_eq!(recover(tail.as_bytes()).unwrap().torn_bytes, big.len() as u64);
}

/// A line whose CRC checks out but whose bytes are not UTF-8 JSON.
fn crc_line(json: &[u8]) -> Vec<u8> {
    let mut out = format!("{:08x} ", line::crc32(json)).into_bytes();
    out.extend_from_slice(json);
    out.push(b'\n');
    out
}

#[test]
fn invalid_utf8_nul_bytes_and_deep_nesting_are_corrupt_lines() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let inputs: [&[u8]; 4] =
        [b"{\"v\":1,\"type\":\"\xff\"}", b"{\"v\":1,\0\"type\":\"event\"}", b"{\"a\":\"\0\"}", deep.as_bytes()];
    for json in inputs {
        let mut bytes = encode_header(1).into_bytes();
        bytes.extend(crc_line(json));
        bytes.extend(encode_event(&pending("ev-1", None)).into_bytes());
        let e = recover(&bytes).unwrap_err();
        assert_eq!((e.code, e.line), (JournalErrorCode::Corrupt, 2), "{e}");
        // The same line last is a torn tail.
        bytes.truncate(bytes.len() - encode_event(&pending("ev-1", None)).len());
        assert_eq!(recover(&bytes).unwrap().torn_bytes, json.len() as u64 + 10);
    }
}

#[test]
fn compaction_is_due_at_1024_records_and_more_than_twice_the_live_ones() {
    assert!(!compaction_due(1023, 0));
    assert!(compaction_due(1024, 0));
    assert!(compaction_due(1024, 511));
    assert!(!compaction_due(1024, 512));
    assert!(!compaction_due(u64::MAX, u64::MAX));
}

#[test]
fn compaction_keeps_the_newest_record_of_each_live_event_only() {
    let mut first = pending("ev-p", None);
    first.attempts = 0;
    let delivered =
        EventRecord { status: Status::Delivered, stop_reason: Some(StopReason::Delivered), ..pending("ev-ok", None) };
    let mut replay = pending("ev-d~r1", None);
    replay.replay_of = Some("ev-d".into());
    let mut held = pending("ev-h", None);
    held.status = Status::Held;
    held.hold_reason = Some(HoldReason::Paused);
    let records =
        [first, pending("ev-ok", None), dead("ev-d"), dead("ev-x"), pending("ev-p", None), delivered, replay, held];
    let r = recover(journal(&records).as_bytes()).unwrap();
    assert_eq!((r.records, r.live()), (9, 4));
    let compacted = compact(&r);
    let c = recover(compacted.as_bytes()).unwrap();
    let ids: Vec<&str> = c.events.iter().map(|e| e.event_id.as_str()).collect();
    assert_eq!(ids, ["ev-p", "ev-x", "ev-d~r1", "ev-h"]);
    assert_eq!(c.events[0].attempts, 1, "the newest record of ev-p");
    assert_eq!((c.records, c.live(), c.created_at_ms), (5, 4, Some(1_796_180_876_011)));
    let live: Vec<EventRecord> = r.events.into_iter().filter(EventRecord::is_live).collect();
    assert_eq!(c.events, live);
}

fn opt_text() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(any::<String>())
}

prop_compose! {
    fn any_record()(
        ids in (any::<String>(), any::<String>(), any::<String>(), any::<String>()),
        times in proptest::array::uniform6(any::<u64>()),
        counts in (any::<u32>(), any::<u32>(), any::<u32>(), proptest::collection::vec(any::<u64>(), 0..20)),
        flags in (any::<bool>(), any::<bool>(), any::<bool>()),
        state in 0usize..4,
        body in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..64)),
        texts in (opt_text(), opt_text(), any::<String>()),
        dl in proptest::option::of((any::<String>(), any::<u32>(), any::<u64>(), 0usize..6)),
    ) -> EventRecord {
        let mut r = pending(&ids.0, if flags.2 { Some(Health::default()) } else { None });
        r.policy_hash = policy_hash_hex(&r.policy, r.health.as_ref());
        (r.endpoint_id, r.target, r.class) = (ids.1, ids.2, ids.3);
        if r.class.is_empty() { r.class.push('c'); }
        [r.first_attempted_at_ms, r.deadline_ms, r.next_attempt_at_ms, r.finished_at_ms, r.held_ms, r.held_since_ms] = times;
        (r.max_attempts, r.attempts, r.wake_refusals, r.offsets_ms) = counts;
        (r.credentials_refreshed, r.disable_endpoint) = (flags.0, flags.1);
        r.status = Status::ALL[state];
        if r.status == Status::Held {
            r.hold_reason = Some(HoldReason::ReleasePacing);
            r.held_until_ms = times[3] ^ times[4];
        }
        r.body_b64 = body.map(|b| base64::engine::general_purpose::STANDARD.encode(b));
        (r.replay_of, r.replayed_as, r.last_outcome) = texts;
        r.dead_letter = dl.map(|(id, attempts, elapsed_ms, reason)| DeadLetter {
            event_id: id, endpoint_id: "ep".into(), attempts, elapsed_ms, stop_reason: StopReason::ALL[reason],
        });
        r.replayed_dead_letter = r.dead_letter.clone();
        r
    }
}

proptest! {
    #[test]
    fn every_record_written_reads_back_equal(rec in any_record()) {
        let text = journal(core::slice::from_ref(&rec));
        let r = recover(text.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        let mut want = rec.clone();
        if want.status == Status::DeadLettered && want.replayed_as.is_none() && want.replay_of.as_deref() == Some(&want.event_id) {
            want.replayed_as = Some(want.event_id.clone());
        }
        // Rewritten, the recovered record is `want`'s text (the original's,
        // unless `replayed_as` was derived from a self-replay above).
        prop_assert_eq!(journal(&r.events), journal(core::slice::from_ref(&want)));
        prop_assert_eq!(&r.events, &vec![want]);
    }

    #[test]
    fn any_bytes_give_a_typed_error_or_a_state_never_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut with_header = encode_header(1).into_bytes();
        with_header.extend_from_slice(&bytes);
        for input in [&bytes, &with_header] {
            if let Ok(r) = recover(input) {
                prop_assert_eq!(r.good_len + r.torn_bytes, input.len() as u64);
            }
        }
    }

    #[test]
    fn a_damaged_journal_gives_a_typed_error_or_a_state_never_a_panic(
        cut in 0usize..4000,
        flips in proptest::collection::vec((0usize..4000, any::<u8>()), 0..4),
    ) {
        let mut bytes = journal(&[pending("ev-1", Some(Health::default())), dead("ev-2"), pending("ev-1", None)]).into_bytes();
        for (at, b) in flips {
            let n = bytes.len();
            bytes[at % n] = b;
        }
        bytes.truncate(cut.min(bytes.len()));
        match recover(&bytes) {
            Ok(r) => prop_assert_eq!(r.good_len + r.torn_bytes, bytes.len() as u64),
            Err(e) => prop_assert!(e.line >= 1 && e.line <= 4, "{}", e),
        }
    }
}

proptest! {
    #[test]
    fn the_direct_writer_writes_the_bytes_the_value_tree_writes(
        rec in any_record(),
        floats in (any::<f64>(), any::<f64>()),
        jitter in 0usize..3,
        ints in (any::<u64>(), any::<u32>(), any::<u64>()),
        sliding in any::<bool>(),
        health in proptest::option::of((any::<bool>(), any::<u64>(), proptest::option::of((any::<f64>(), any::<u64>(), any::<u32>())),
                                        any::<f64>(), any::<f64>(), any::<u64>())),
    ) {
        let mut rec = rec;
        rec.health = health.map(|(hold, pause, circuit, multiple, floor, cache)| {
            let mut h = Health { hold_budget_refusals: hold, pause_max_ms: pause, cache_ms: cache, ..Health::default() };
            h.circuit = circuit.map(|(ratio, n, probes)| crate::health::Circuit {
                failure_ratio: ratio, min_sample: n, cooldown_ms: n / 3, cooldown_max_ms: n / 2, probes, probe_interval_ms: n / 5,
            });
            (h.release.multiple, h.release.floor_per_s) = (multiple, floor);
            h
        });
        (rec.policy.backoff.factor, rec.policy.budget.ratio) = floats;
        rec.policy.backoff.jitter = [Jitter::None, Jitter::Full, Jitter::Equal][jitter];
        (rec.policy.window_ms, rec.policy.hard_cap, rec.policy.budget.min_sample) = ints;
        rec.policy.budget.sliding = sliding;
        prop_assert_eq!(encode_event(&rec), line::frame(&record::event_to_value(&rec)));
    }
}

#[test]
fn the_direct_writer_writes_the_bytes_the_value_tree_writes_for_the_fixed_records() {
    for rec in [pending("ev-1", None), pending("ev-\"2\"\n", Some(Health::default())), dead("ev-3")] {
        assert_eq!(encode_event(&rec), line::frame(&record::event_to_value(&rec)));
    }
}
