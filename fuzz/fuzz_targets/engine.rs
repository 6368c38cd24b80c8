//! The delivery engine (docs/engine.md) under random input sequences: the
//! bytes are a script of host steps (admit, answer a send with a random
//! result, answer a store call with a good, failed or malformed reply,
//! drain, replay, a random raw wire batch, wait). Invariants asserted after
//! every step:
//!
//! * an (event, attempt) pair is sent at most once (unless the host said
//!   `not_started`), attempts count up by one, none at or after its edge;
//! * an event ends at most once, and never sends after it ended;
//! * the journal written reads back at the end, with the engine's open events;
//! * raw batches of any bytes get an answer or a typed error, never a panic.
#![no_main]
use std::collections::{BTreeMap, BTreeSet};

use libfuzzer_sys::fuzz_target;
use retry_policy_core::engine::{wire, AttemptResult, Config, Engine, Input, NewEvent, Output, ReplayFilter, StoreAnswer};
use retry_policy_core::journal;

const DOC: &str = r#"{"version":"f","health":{"circuit":{"min_sample":2,"cooldown_ms":1000,"probe_interval_ms":300}},
 "classes":{"p":{"health":null,"window_ms":8000,"hard_cap":5,"backoff":{"base_ms":200,"factor":2.0,"cap_ms":4000,"jitter":"full"},
  "budget":{"ratio":0.3,"window_ms":5000,"min_sample":3,"sliding":true}},
 "h":{"window_ms":9000,"hard_cap":6,"backoff":{"base_ms":200,"factor":2.0,"cap_ms":4000,"jitter":"full"},
  "budget":{"ratio":0.3,"window_ms":5000,"min_sample":3,"sliding":true}}}}"#;

fuzz_target!(|data: &[u8]| {
    let memory = data.first().is_some_and(|b| b & 1 == 1);
    let config = Config { document: DOC.into(), max_in_flight: 3, memory_store: memory, ..Config::default() };
    let mut e = Engine::new(config).unwrap();
    let mut now = 1_800_000_000_000u64;
    let mut sends: Vec<(String, u32)> = Vec::new();
    let mut calls: Vec<(u64, usize, String)> = Vec::new();
    let mut sent = BTreeSet::new();
    let mut last: BTreeMap<String, u32> = BTreeMap::new();
    let mut ended = BTreeSet::new();
    let mut text = String::new();
    let mut i = 1;
    // At most 300 steps: the invariants, not the length, are what is fuzzed.
    while i + 2 < data.len().min(901) {
        let (op, a, b) = (data[i], data[i + 1], data[i + 2]);
        i += 3;
        let input = match op % 9 {
            0 | 1 => Input::Admit(NewEvent {
                event_id: format!("e{i}"),
                endpoint_id: format!("ep{}", a % 3),
                target: "https://x.example/".into(),
                class: if b & 1 == 0 { "p" } else { "h" }.into(),
                body_b64: None,
            }),
            2 | 3 if !sends.is_empty() => {
                let (id, attempt) = sends.remove(usize::from(a) % sends.len());
                let result = match b % 6 {
                    0 => AttemptResult::Response { status: 200, retry_after: None },
                    1 => AttemptResult::Response { status: 503, retry_after: Some(format!("{}", b % 4)) },
                    2 => AttemptResult::Response { status: 429, retry_after: Some("1".into()) },
                    3 => AttemptResult::Transport { kind: "reset".into() },
                    4 => {
                        sent.remove(&(id.clone(), attempt));
                        last.insert(id.clone(), attempt - 1);
                        AttemptResult::NotStarted
                    }
                    _ => AttemptResult::Response { status: 100 + u16::from(b), retry_after: None },
                };
                Input::Result { event_id: id, attempt, result }
            }
            4 if !calls.is_empty() => {
                let (call_id, argc, op) = calls.remove(usize::from(a) % calls.len());
                let now_i = i64::try_from(now).unwrap_or(i64::MAX);
                let answer = match b % 4 {
                    0 => StoreAnswer::Failed,
                    1 => StoreAnswer::Reply(vec![i64::from(a); usize::from(b % 13)]),
                    _ => {
                        let mut r = if op == "report" || op == "probe" { vec![-1, 0, 0, 0, 0] } else { vec![i64::from(b & 2 == 2), 9, 2, 9, 2] };
                        if argc == 18 {
                            r.push(if op == "probe" { i64::from(a & 1) } else { -1 });
                            r.extend([now_i + i64::from(a % 3) * 500, 0, 0, 0, now_i]);
                        }
                        StoreAnswer::Reply(r)
                    }
                };
                Input::Store { call_id, answer }
            }
            5 => Input::Replay(ReplayFilter { limit: Some(u64::from(a % 4)), ..ReplayFilter::default() }),
            6 if a == 0 && b == 0 => Input::Drain,
            7 => {
                let end = (i + usize::from(a % 64)).min(data.len());
                let raw = String::from_utf8_lossy(&data[i..end]).into_owned();
                i = end;
                let _ = wire::feed(&mut e, &raw);
                Input::Tick
            }
            _ => {
                now += u64::from(a) * 20 + u64::from(b);
                Input::Tick
            }
        };
        let _ = e.handle(now, input);
        while let Some(o) = e.poll_output() {
            match o {
                Output::Send(s) => {
                    assert!(now < s.start_before_ms, "a send at or after its edge");
                    assert!(sent.insert((s.event_id.clone(), s.attempt)), "an attempt sent twice");
                    let prev = last.insert(s.event_id.clone(), s.attempt).unwrap_or(0);
                    assert_eq!(s.attempt, prev + 1, "attempts count up by one");
                    assert!(!ended.contains(&s.event_id), "a send after the end");
                    sends.push((s.event_id, s.attempt));
                }
                Output::StoreCall { call_id, argv, .. } => calls.push((call_id, argv.len(), argv[0].clone())),
                Output::Delivered { event_id, .. } => assert!(ended.insert(event_id), "ended twice"),
                Output::DeadLetter { dead_letter, .. } => assert!(ended.insert(dead_letter.event_id), "ended twice"),
                Output::Journal { line } => text.push_str(&line),
                Output::JournalCompact { journal } => text = journal,
                _ => {}
            }
        }
    }
    let r = journal::recover(text.as_bytes()).expect("the journal reads back");
    assert_eq!(r.events.iter().filter(|x| x.is_open()).count(), e.open_events());
});
