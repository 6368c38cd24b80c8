//! Random input sequences through the engine (a simulated host answering
//! sends with random results), checking the invariants of docs/engine.md:
//!
//! * an (event, attempt) pair is sent at most once, attempts count up by one;
//! * no send is asked for at or after its `start_before_ms`;
//! * every admitted event ends in exactly one `delivered` or `dead_letter`
//!   once its window is over and every send is answered (none is lost);
//! * the journal written so far always reads back, and its open events are
//!   the engine's;
//! * refused inputs change nothing (the run goes on).

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use retry_policy_core::engine::{AttemptResult, Config, Engine, Input, NewEvent, Output, StoreAnswer};
use retry_policy_core::journal;

const DOC: &str = r#"{"version":"p","health":{"circuit":{"min_sample":3,"cooldown_ms":2000,"probe_interval_ms":500}},
 "classes":{
  "plain":{"health":null,"window_ms":20000,"hard_cap":6,"backoff":{"base_ms":500,"factor":2.0,"cap_ms":8000,"jitter":"full"},
           "budget":{"ratio":0.2,"window_ms":10000,"min_sample":5,"sliding":true}},
  "held":{"window_ms":30000,"hard_cap":8,"backoff":{"base_ms":500,"factor":2.0,"cap_ms":8000,"jitter":"full"},
          "budget":{"ratio":0.2,"window_ms":10000,"min_sample":5,"sliding":true}}}}"#;

#[derive(Clone, Debug)]
enum Step {
    Admit { endpoint: u8, held: bool },
    Answer { pick: u16, result: u8, retry_after_s: u8 },
    StoreAnswer { pick: u16, kind: u8 },
    Wait { ms: u16 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0u8..3, any::<bool>()).prop_map(|(endpoint, held)| Step::Admit { endpoint, held }),
        5 => (any::<u16>(), 0u8..8, 0u8..4).prop_map(|(pick, result, retry_after_s)| Step::Answer { pick, result, retry_after_s }),
        2 => (any::<u16>(), 0u8..4).prop_map(|(pick, kind)| Step::StoreAnswer { pick, kind }),
        3 => (0u16..3000).prop_map(|ms| Step::Wait { ms }),
    ]
}

struct Host {
    engine: Engine,
    now: u64,
    sends: Vec<(String, u32, u64)>,
    calls: Vec<(u64, Vec<String>)>,
    sent: BTreeSet<(String, u32)>,
    last_attempt: BTreeMap<String, u32>,
    admitted: BTreeSet<String>,
    terminal: BTreeMap<String, u32>,
    journal: String,
    memory: bool,
}

impl Host {
    fn feed(&mut self, input: Input) {
        let _ = self.engine.handle(self.now, input);
        while let Some(o) = self.engine.poll_output() {
            match o {
                Output::Send(s) => {
                    assert!(
                        self.now < s.start_before_ms,
                        "{} attempt {} asked for at or after its edge",
                        s.event_id,
                        s.attempt
                    );
                    assert!(
                        self.sent.insert((s.event_id.clone(), s.attempt)),
                        "{} attempt {} sent twice",
                        s.event_id,
                        s.attempt
                    );
                    let last = self.last_attempt.insert(s.event_id.clone(), s.attempt).unwrap_or(0);
                    assert_eq!(s.attempt, last + 1, "{}: attempts count up by one", s.event_id);
                    assert!(!self.terminal.contains_key(&s.event_id), "{} sent after it ended", s.event_id);
                    self.sends.push((s.event_id, s.attempt, s.start_before_ms));
                }
                Output::StoreCall { call_id, argv, .. } => {
                    assert!(!self.memory, "a memory-store engine asks for no store call");
                    self.calls.push((call_id, argv));
                }
                Output::Delivered { event_id, .. } => self.end(event_id),
                Output::DeadLetter { dead_letter, .. } => self.end(dead_letter.event_id),
                Output::Journal { line } => self.journal.push_str(&line),
                Output::JournalCompact { journal } => self.journal = journal,
                Output::JournalTruncate { .. } => panic!("no torn tail in a journal the engine wrote whole"),
                _ => {}
            }
        }
    }

    fn end(&mut self, id: String) {
        *self.terminal.entry(id).or_insert(0) += 1;
    }

    fn answer_store(&mut self, i: usize, kind: u8) {
        let (call_id, argv) = self.calls.remove(i);
        let health = argv.len() == 18;
        let op = argv[0].as_str();
        let now: i64 = argv[3].parse().unwrap();
        let answer = match kind {
            0 => StoreAnswer::Failed,
            1 => StoreAnswer::Reply(vec![7, 7]),
            _ => {
                let reserved = i64::from(kind == 2);
                let mut r = match op {
                    "report" | "probe" => vec![-1, 0, 0, 0, 0],
                    _ => vec![reserved, 10, 1, 10, 1],
                };
                if health {
                    r.push(if op == "probe" { reserved } else { -1 });
                    r.extend([0, 0, 0, 0, now]);
                }
                StoreAnswer::Reply(r)
            }
        };
        self.feed(Input::Store { call_id, answer });
    }
}

fn run(steps: Vec<Step>, memory: bool) {
    let config = Config { document: DOC.into(), max_in_flight: 4, memory_store: memory, ..Config::default() };
    let mut h = Host {
        engine: Engine::new(config).unwrap(),
        now: 1_800_000_000_000,
        sends: vec![],
        calls: vec![],
        sent: BTreeSet::new(),
        last_attempt: BTreeMap::new(),
        admitted: BTreeSet::new(),
        terminal: BTreeMap::new(),
        journal: String::new(),
        memory,
    };
    for (n, s) in steps.into_iter().enumerate() {
        match s {
            Step::Admit { endpoint, held } => {
                let id = format!("ev-{n}");
                h.admitted.insert(id.clone());
                h.feed(Input::Admit(NewEvent {
                    event_id: id,
                    endpoint_id: format!("ep-{endpoint}"),
                    target: format!("https://e{endpoint}.example/"),
                    class: if held { "held" } else { "plain" }.into(),
                    body_b64: None,
                }));
            }
            Step::Answer { pick, result, retry_after_s } if !h.sends.is_empty() => {
                let (id, attempt, _) = h.sends.remove(usize::from(pick) % h.sends.len());
                let result = match result {
                    0 | 1 => AttemptResult::Response { status: 200, retry_after: None },
                    2 => AttemptResult::Response { status: 503, retry_after: None },
                    3 => AttemptResult::Response { status: 429, retry_after: Some(retry_after_s.to_string()) },
                    4 => AttemptResult::Response { status: 410, retry_after: None },
                    5 => AttemptResult::Transport { kind: "connect_error".into() },
                    6 => {
                        // Nothing reached the wire: the engine gives the number back.
                        h.sent.remove(&(id.clone(), attempt));
                        h.last_attempt.insert(id.clone(), attempt - 1);
                        AttemptResult::NotStarted
                    }
                    _ => AttemptResult::Response { status: 500, retry_after: None },
                };
                h.feed(Input::Result { event_id: id, attempt, result });
            }
            Step::StoreAnswer { pick, kind } if !h.calls.is_empty() => {
                let i = usize::from(pick) % h.calls.len();
                h.answer_store(i, kind);
            }
            Step::Wait { ms } => {
                h.now += u64::from(ms);
                h.feed(Input::Tick);
            }
            _ => h.feed(Input::Tick),
        }
        let recovered = journal::recover(h.journal.as_bytes()).expect("the journal reads back");
        let open_in_journal = recovered.events.iter().filter(|r| r.is_open()).count();
        assert_eq!(open_in_journal, h.engine.open_events(), "the journal's open events are the engine's");
    }
    // Everything answered, time past every window: every event ended once.
    for _ in 0..400 {
        if let Some((id, attempt, _)) = h.sends.pop() {
            h.feed(Input::Result {
                event_id: id,
                attempt,
                result: AttemptResult::Response { status: 503, retry_after: None },
            });
        } else if !h.calls.is_empty() {
            h.answer_store(0, 3);
        } else {
            h.now += 5_000;
            h.feed(Input::Tick);
        }
    }
    for id in &h.admitted {
        assert_eq!(h.terminal.get(id), Some(&1), "{id} ended exactly once");
    }
    assert_eq!(h.engine.open_events(), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_runs_keep_every_invariant_with_store_calls(steps in prop::collection::vec(step(), 1..120)) {
        run(steps, false);
    }

    #[test]
    fn random_runs_keep_every_invariant_with_the_memory_store(steps in prop::collection::vec(step(), 1..120)) {
        run(steps, true);
    }
}
