//! Drain and resume through the driver (docs/replica.md "SIGTERM and
//! SIGINT: drain"; docs/engine.md sections 7, 8, 10): a run delivering to a
//! slow 503 endpoint gets its signal mid-run and drains: the summary says
//! `drained`, `events == sum(stop_reasons) + pending`, at most
//! `concurrency` events are left pending, no (event, attempt) is received
//! twice; a second run resuming the first's journal finishes every pending
//! event without reusing an attempt number. The fleet test
//! `tests/fleet/test_sigterm.py` holds the real process to the same.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::artifact_reload::live;
use crate::drain::Signals;
use crate::driver::{self, DriverConfig, Run, Tally};
use crate::journal_file::JournalFile;
use crate::tests::{engine, events, local_config};
use crate::Metrics;

type Received = Arc<Mutex<Vec<(String, u32)>>>;

/// A 503 endpoint that answers each request `latency` after it arrives,
/// recording (X-Event-Id, X-Attempt) on arrival.
fn slow_503(latency: Duration) -> (String, Received) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", l.local_addr().unwrap());
    let got: Received = Arc::default();
    let seen = got.clone();
    thread::spawn(move || {
        for c in l.incoming().flatten() {
            let seen = seen.clone();
            thread::spawn(move || {
                let mut c = c;
                let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
                let mut buf = Vec::new();
                let mut chunk = [0u8; 2048];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match c.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).to_ascii_lowercase();
                let header = |name: &str| {
                    head.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string())).unwrap_or_default()
                };
                let attempt = header("x-attempt:").parse().unwrap_or(0);
                seen.lock().unwrap().push((header("x-event-id:"), attempt));
                thread::sleep(latency);
                let _ = c.write_all(b"HTTP/1.1 503 Busy\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            });
        }
    });
    (url, got)
}

/// `n` events, 4 in progress at once, journalled to `journal` (resumed
/// first), the signal raised once `raise_after` requests arrived.
fn run(
    url: &str,
    journal: &Path,
    n: u64,
    raise_after: Option<(usize, Received)>,
    drain: Duration,
) -> (Tally, Arc<Metrics>) {
    let signals = Signals::none();
    if let Some((after, received)) = raise_after {
        let s = signals.clone();
        thread::spawn(move || {
            let until = Instant::now() + Duration::from_secs(20);
            while received.lock().unwrap().len() < after && Instant::now() < until {
                thread::sleep(Duration::from_millis(2));
            }
            s.raise();
        });
    }
    let (file, bytes) = JournalFile::open(journal, crate::clock::now_ms()).unwrap();
    let metrics = Arc::new(Metrics::default());
    // Slow retries (no budget pressure): events wait between attempts.
    let document = r#"{"version":"drain","classes":{"storm":{"window_ms":8000,"hard_cap":8,
        "backoff":{"base_ms":50,"factor":2.0,"cap_ms":200,"jitter":"none"},
        "budget":{"ratio":1.0,"window_ms":10000,"min_sample":1000000,"sliding":true}}}}"#
        .to_string();
    let t = driver::run(Run {
        artifact: Arc::new(live(engine(), false, Vec::new())),
        document,
        redis: None,
        journal: Some(file),
        store_bytes: bytes,
        resume_bytes: None,
        metrics: metrics.clone(),
        config: DriverConfig { drain, ..local_config() },
        source: events(n, "drain", url),
        signals,
        watch: None,
        watch_policy: None,
        follow: None,
        needed: Vec::new(),
        progress: None,
    })
    .unwrap();
    (t, metrics)
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rpd-drain-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("journal")
}

fn no_pair_twice(received: &Received) {
    let got = received.lock().unwrap().clone();
    let mut seen = std::collections::HashSet::new();
    for pair in &got {
        assert!(seen.insert(pair.clone()), "{pair:?} was received twice");
    }
}

#[test]
fn a_signal_mid_run_drains_leaves_at_most_concurrency_events_pending_and_a_resumed_run_finishes_them() {
    let (url, received) = slow_503(Duration::from_millis(60));
    let journal = scratch("resume");
    let (t, m) = run(&url, &journal, 30, Some((12, received.clone())), Duration::from_secs(3));
    let s = t.summary(&m);
    assert!(t.drained, "{s}");
    assert_eq!(t.events(), t.stops.values().sum::<u64>() + t.pending(), "{s}");
    assert!(t.pending() > 0 && t.pending() <= 4, "at most --concurrency events in progress: {s}");
    let got = received.lock().unwrap().len() as u64;
    assert!(s["attempts"].as_u64().unwrap() >= got, "every request received is counted: {s} vs {got}");
    no_pair_twice(&received);

    // The next run resumes the journal: the pending events continue, each
    // with attempt numbers it has not used.
    let (t2, m2) = run(&url, &journal, 0, None, Duration::from_secs(3));
    assert!(!t2.drained);
    assert_eq!(t2.resumed, t.pending(), "{}", t2.summary(&m2));
    assert_eq!(t2.pending(), 0, "every resumed event stops: {}", t2.summary(&m2));
    no_pair_twice(&received);
    let _ = std::fs::remove_dir_all(journal.parent().unwrap());
}

#[test]
fn a_resumed_run_admitting_ids_its_journal_holds_drops_those_and_admits_the_rest() {
    let (url, received) = slow_503(Duration::from_millis(20));
    let journal = scratch("duplicate");
    let (t, m) = run(&url, &journal, 10, Some((4, received.clone())), Duration::from_secs(3));
    assert!(t.drained && t.pending() > 0, "{}", t.summary(&m));
    // The same ten ids again: those the journal holds are `duplicate_event`
    // (dropped, not this run's events), the others admitted. On its own
    // thread: a driver that kept counting a refused admission would wait
    // for it forever (120 s is a hang, not a speed).
    let (tx, rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let (t2, _) = run(&url, &journal, 10, None, Duration::from_secs(3));
        let _ = tx.send((t2.resumed, t2.admitted, t2.pending(), t2.stops.values().sum::<u64>()));
        let _ = std::fs::remove_dir_all(journal.parent().unwrap());
    });
    let (resumed, admitted, pending, stopped) = rx.recv_timeout(Duration::from_secs(120)).expect("the run ends");
    assert_eq!(resumed, t.pending());
    assert_eq!(admitted, 10 - t.events(), "the ids run 1 never admitted, and only those");
    assert_eq!((pending, stopped), (0, resumed + admitted));
    no_pair_twice(&received);
}

#[test]
fn an_attempt_outlasting_the_drain_is_abandoned_counted_and_its_event_left_pending() {
    let (url, received) = slow_503(Duration::from_millis(1500));
    let journal = scratch("abandon");
    let started = Instant::now();
    let (t, m) = run(&url, &journal, 8, Some((4, received.clone())), Duration::from_millis(200));
    let s = t.summary(&m);
    assert!(started.elapsed() < Duration::from_millis(1400), "the drain deadline ended the run: {s}");
    assert!(t.drained, "{s}");
    assert_eq!(t.pending(), 4, "the four events whose attempts were abandoned stay pending: {s}");
    assert_eq!(t.first_attempts, 4, "abandoned attempts are counted as made: {s}");
    assert_eq!(t.events(), 4, "nothing admitted after the signal: {s}");
    no_pair_twice(&received);
    let _ = std::fs::remove_dir_all(journal.parent().unwrap());
}

#[test]
fn a_long_run_s_journal_is_compacted_by_the_engine_and_still_resumes() {
    let ok = crate::endpoints::Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let journal = scratch("compact");
    let open = || JournalFile::open(&journal, crate::clock::now_ms()).unwrap();
    let go = |n: u64, (file, bytes): (JournalFile, Vec<u8>)| {
        let t = driver::run(Run {
            artifact: Arc::new(live(engine(), false, Vec::new())),
            document: crate::tests::doc(1_000_000),
            redis: None,
            journal: Some(file),
            store_bytes: bytes,
            resume_bytes: None,
            metrics: Arc::new(Metrics::default()),
            config: local_config(),
            source: events(n, "compact", &ok.url()),
            signals: Signals::none(),
            watch: None,
            watch_policy: None,
            follow: None,
            needed: Vec::new(),
            progress: None,
        })
        .unwrap();
        assert_eq!(t.pending(), 0);
        t
    };
    // 500 delivered events write 1,500 records: the engine compacts at 1,024.
    let t = go(500, open());
    assert_eq!(t.stops["delivered"], 500);
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines = text.lines().count();
    assert!(lines < 1024, "compacted: {lines} lines");
    assert!(text.lines().next().unwrap().contains("\"type\":\"header\""), "a compacted journal starts with its header");
    assert!(!journal.with_file_name("journal.compact").exists(), "the copy was renamed over the journal");
    // It resumes (nothing open) and takes more.
    let t = go(3, open());
    assert_eq!((t.resumed, t.stops["delivered"]), (0, 3));
    let _ = std::fs::remove_dir_all(journal.parent().unwrap());
}
