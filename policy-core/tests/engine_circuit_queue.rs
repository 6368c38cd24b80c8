//! The hold queue under an open circuit (docs/engine.md section 5,
//! "Release"; release.rs): events held through a long outage wait behind
//! one head, so each writes O(1) journal records however many cooldowns
//! and probe windows pass, and they are all delivered once it recovers.

mod common;

use std::collections::BTreeMap;

use retry_policy_core::engine::{AttemptResult, Config, Engine, Input, NewEvent, Output};

/// Window 300 s, at most 6 attempts; a budget that never refuses; a
/// circuit that opens on a run of 10 failures, cooldowns 2 s doubling to
/// 16 s, one probe a second.
const DOC: &str = r#"{"version": "c", "classes": {"h": {"window_ms": 300000, "hard_cap": 6,
  "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 10000, "jitter": "none"},
  "budget": {"ratio": 0.5, "window_ms": 10000, "min_sample": 100000, "sliding": false},
  "health": {"circuit": {"failure_ratio": 0.5, "min_sample": 20, "cooldown_ms": 2000,
    "cooldown_max_ms": 16000, "probes": 1, "probe_interval_ms": 1000},
    "release": {"multiple": 3.0, "floor_per_s": 1.0}}}}}"#;

const DOWN_UNTIL_MS: u64 = 120_000;

struct Run {
    engine: Engine,
    /// Journal lines per event id.
    records: BTreeMap<String, u32>,
    /// Sends not answered yet: (event id, attempt).
    out: Vec<(String, u32)>,
    sends: u32,
    delivered: u32,
    dead: u32,
}

impl Run {
    fn input(&mut self, now: u64, input: Input) {
        self.engine.handle(now, input).unwrap();
        while let Some(o) = self.engine.poll_output() {
            match o {
                Output::Journal { line } => {
                    if let Some(id) = common::journal_event_id(&line) {
                        *self.records.entry(id).or_default() += 1;
                    }
                }
                Output::Send(s) => {
                    self.sends += 1;
                    self.out.push((s.event_id, s.attempt));
                }
                Output::Delivered { .. } => self.delivered += 1,
                Output::DeadLetter { .. } => self.dead += 1,
                _ => {}
            }
        }
    }
}

/// 200 events arrive over the first 20 s of a 120 s outage (503s); every
/// send is answered 10 ms later; ticks every 50 ms to 400 s.
fn long_outage() -> Run {
    let config = Config { document: DOC.into(), memory_store: true, ..Config::default() };
    let mut r = Run {
        engine: Engine::new(config).unwrap(),
        records: BTreeMap::new(),
        out: vec![],
        sends: 0,
        delivered: 0,
        dead: 0,
    };
    let mut now = 0;
    while now <= 400_000 {
        if now < 20_000 && now % 100 == 0 {
            let e = NewEvent {
                event_id: format!("ev-{}", now / 100),
                endpoint_id: "ep".into(),
                target: "https://example.com/in".into(),
                class: "h".into(),
                body_b64: None,
            };
            r.input(now, Input::Admit(e));
        }
        r.input(now, Input::Tick);
        let status = if now < DOWN_UNTIL_MS { 503 } else { 200 };
        for (id, attempt) in std::mem::take(&mut r.out) {
            let result = AttemptResult::Response { status, retry_after: None };
            r.input(now + 10, Input::Result { event_id: id, attempt, result });
        }
        now += 50;
    }
    r
}

#[test]
fn events_held_through_many_cooldowns_write_a_bounded_number_of_journal_records() {
    let r = long_outage();
    let total: u32 = r.records.values().sum();
    let most = r.records.values().max().unwrap();
    // Per event: a circuit hold (or a failed first attempt), a pacer hold
    // after the close, its attempt, its delivery; a member that reaches the
    // head adds a probe refusal, and each probe an attempt and a hold. 864
    // records in all (4.3 per event), at most 11 for one event. Without the
    // queue every held event wrote about two records per cooldown (12
    // cooldowns of 2 s doubling to 16 s in 120 s): 3,929 records.
    assert!(total <= 200 * 5, "{total} journal records for 200 events");
    // The probes rotate: the head is the member sent as a probe the fewest
    // times, so a failed prober goes behind the others instead of spending
    // its 6 attempts on probes and being dead-lettered
    // `max_attempts_exhausted` (by deadline alone, one event wrote 27
    // records and one was dead-lettered so).
    assert!(*most <= 12, "one event wrote {most} records");
}

#[test]
fn events_held_through_a_long_outage_are_all_delivered_after_it() {
    let r = long_outage();
    assert_eq!(r.delivered + r.dead, 200, "every event ended");
    assert_eq!(r.dead, 0, "none dead-lettered: {} of 200", r.dead);
    assert!(
        r.sends < 260,
        "{} sends for 200 events: one per event, the failures before the opening and the probes",
        r.sends
    );
}
