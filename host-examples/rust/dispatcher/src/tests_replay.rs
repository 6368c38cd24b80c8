//! Durable holds across a restart and replay of dead letters
//! (docs/health-dispatch.md sections 3-4) through the journal: a held event
//! is on disk before anything else happens to it and is delivered after
//! resume; replay chooses by endpoint, reason and time range, writes `~r1`
//! ids under the current document, and an interrupted replay (the commit
//! record written, the dead letter's `replayed_as` record lost) replays
//! nothing twice.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use retry_policy_core::StopReason;
use retry_policy_host::Policies;

use crate::replay::{replay, ReplayFilter};
use crate::store::{EventStore, Status};
use crate::tests::{engine, local_config};
use crate::tests_health::{events_at, run};
use crate::tests_health_util::{health_doc, Receiver};
use crate::tests_journal::hasher;
use crate::{BudgetStore, Dispatcher, Metrics, NewEvent};

const FAST_RELEASE: &str = r#"{"multiple":1.0,"floor_per_s":1000.0}"#;

fn journal(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpd-replay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("events.journal")
}

fn open(path: &Path) -> (EventStore, Vec<crate::EventRecord>) {
    EventStore::open_journal(path, &mut hasher()).expect("the journal opens")
}

#[test]
fn a_held_event_survives_a_restart_in_the_journal_and_is_delivered_after_resume_not_before_its_instant() {
    let rx = Receiver::start(Box::new(|i, _| if i == 0 { (429, Some("2")) } else { (200, None) }));
    let doc = health_doc(20_000, 50, 0.5, 50, "null", FAST_RELEASE);
    let path = journal("restart");
    let store = EventStore::with_journal(&path, &mut hasher()).unwrap();
    let m = std::sync::Arc::new(Metrics::default());
    let mut d = Dispatcher::start(
        engine(),
        &doc,
        &["storm"],
        BudgetStore::local(),
        store,
        m,
        local_config(),
        Vec::new(),
        events_at(2, &rx.url(), 300),
    )
    .unwrap();
    let t = Instant::now();
    while d.store().get("ep-1").is_none_or(|r| r.status != Status::Held) {
        assert!(t.elapsed() < Duration::from_secs(5), "ep-1 was never held");
        std::thread::sleep(Duration::from_millis(5));
    }
    d.drain(Duration::from_millis(500));
    drop(d);
    let paused_at = rx.arrivals()[0].at_ms;
    let (store, records) = open(&path);
    let held = records.iter().find(|r| r.event_id == "ep-1").unwrap();
    assert_eq!((held.status, held.attempts), (Status::Held, 0), "journaled held, no attempt spent");
    assert!(held.hold.held_until_ms >= paused_at + 2_000);
    let resumed = records.into_iter().filter(|r| r.is_open()).collect();
    let (recs, _) = run(&doc, 2, store, resumed, Box::new(std::iter::empty()));
    assert!(recs.iter().all(|r| r.status == Status::Delivered), "{recs:#?}");
    let late = rx.arrivals().into_iter().find(|a| a.event_id == "ep-1").expect("ep-1 was sent after resume");
    assert!(late.at_ms >= paused_at + 2_000, "sent {} ms after the 429", late.at_ms - paused_at);
    assert!(recs.iter().find(|r| r.event_id == "ep-1").unwrap().hold.held_ms > 0);
}

fn gone_events(url: &str) -> Box<dyn Iterator<Item = NewEvent> + Send> {
    let u = url.to_string();
    Box::new(["gone-0", "gone-1", "other-0"].into_iter().map(move |id| NewEvent {
        event_id: id.into(),
        endpoint_id: id.split('-').next().unwrap().into(),
        target: u.clone(),
        class: "storm".into(),
        at_ms: None,
    }))
}

#[test]
fn replay_chooses_by_endpoint_reason_and_time_writes_r1_ids_and_an_interrupted_replay_replays_nothing_twice() {
    let rx = Receiver::start(Box::new(|i, _| if i < 3 { (410, None) } else { (200, None) }));
    let doc = health_doc(10_000, 50, 0.5, 50, "null", FAST_RELEASE);
    let path = journal("replay");
    let (recs, _) =
        run(&doc, 1, EventStore::with_journal(&path, &mut hasher()).unwrap(), Vec::new(), gone_events(&rx.url()));
    assert!(recs.iter().all(|r| r.stop_reason == Some(StopReason::TerminalResponse)));
    let finished_ms = recs.iter().map(|r| r.finished_at_ms).max().unwrap();
    let mut inst = crate::shared::instance(&engine()).unwrap();
    let policies = Policies::new(&mut inst, &doc).unwrap();
    let now = crate::dispatcher::now_ms();
    let gone = |from_ms, to_ms| ReplayFilter {
        endpoint_id: Some("gone".into()),
        stop_reason: Some(StopReason::TerminalResponse),
        from_ms,
        to_ms,
        ..ReplayFilter::default()
    };
    {
        let (store, records) = open(&path);
        let none = replay(&store, &records, &policies, &mut inst, &gone(None, Some(1)), now).ok().unwrap();
        assert_eq!((none.replayed, none.ids.len()), (0, 0), "nothing finished before 1 ms");
        let other_reason = ReplayFilter { stop_reason: Some(StopReason::MaxAttemptsExhausted), ..gone(None, None) };
        assert_eq!(replay(&store, &records, &policies, &mut inst, &other_reason, now).ok().unwrap().replayed, 0);
        let r =
            replay(&store, &records, &policies, &mut inst, &gone(Some(0), Some(finished_ms + 1)), now).ok().unwrap();
        assert_eq!(r.ids, ["gone-0~r1", "gone-1~r1"]);
        assert_eq!((r.replayed, r.already_replayed, r.skipped_no_class), (2, 0, 0));
        let new = store.get("gone-0~r1").unwrap();
        assert_eq!((new.status, new.attempts, new.hold.replay_of.as_deref()), (Status::Pending, 0, Some("gone-0")));
        assert_eq!(new.hold.replayed_dead_letter, store.get("gone-0").unwrap().dead_letter);
        assert!(new.first_attempted_at_ms >= now && new.health.is_some(), "admitted anew under the current document");
        let other = ReplayFilter { endpoint_id: Some("other".into()), ..ReplayFilter::default() };
        assert_eq!(replay(&store, &records, &policies, &mut inst, &other, now).ok().unwrap().ids, ["other-0~r1"]);
    }
    // A crash after the commit record, before the dead letter's `replayed_as` record.
    let text = std::fs::read_to_string(&path).unwrap();
    let cut = text.trim_end_matches('\n').rfind('\n').unwrap() + 1;
    assert!(text[cut..].contains("\"replayed_as\":\"other-0~r1\""), "the last record is other-0's replayed_as");
    std::fs::write(&path, &text[..cut]).unwrap();
    let (store, records) = open(&path);
    assert_eq!(
        records.iter().find(|r| r.event_id == "other-0").unwrap().hold.replayed_as.as_deref(),
        Some("other-0~r1")
    );
    let again = replay(&store, &records, &policies, &mut inst, &ReplayFilter::default(), now).ok().unwrap();
    assert_eq!((again.replayed, again.already_replayed), (0, 3), "nothing replayed twice");
    // The next run sends each replay once.
    let resumed = records.into_iter().filter(|r| r.is_open()).collect();
    let (recs, _) = run(&doc, 2, store, resumed, Box::new(std::iter::empty()));
    let replays: Vec<_> = recs.iter().filter(|r| r.hold.replay_of.is_some()).collect();
    assert_eq!(replays.len(), 3);
    assert!(replays.iter().all(|r| r.status == Status::Delivered && r.attempts == 1), "{replays:#?}");
    let sent: Vec<String> = rx.arrivals().into_iter().skip(3).map(|a| a.event_id).collect();
    assert_eq!(sent.len(), 3, "each replay once: {sent:?}");
}
