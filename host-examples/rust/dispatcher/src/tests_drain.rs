//! SIGTERM drain of a replica process (docs/replica.md): a child process
//! (this test binary, running `drain_child`) delivers to a slow 503
//! endpoint with SIGTERM/SIGINT handlers installed as the replica installs
//! them, and gets SIGTERM mid-run. It must exit 0 with the summary
//! (`drained: true`), `events == sum(stop_reasons) + pending`, every
//! attempt counted, and no (event id, attempt) received twice.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::drain::Signals;
use crate::report::replica_summary;
use crate::tests::{doc, engine, events, local_config};
use crate::{BudgetStore, Dispatcher, EventStore, Metrics};

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

/// The child: 30 events at 4 at a time to `RPD_DRAIN_TARGET`, journalled
/// to `RPD_DRAIN_JOURNAL`, drained for `RPD_DRAIN_MS` on a signal; writes
/// the summary to `RPD_DRAIN_SUMMARY`.
#[test]
#[ignore = "run as a child process by the SIGTERM tests"]
fn drain_child() {
    let var = |k: &str| std::env::var(k).ok();
    let (Some(url), Some(journal), Some(summary), Some(drain_ms)) =
        (var("RPD_DRAIN_TARGET"), var("RPD_DRAIN_JOURNAL"), var("RPD_DRAIN_SUMMARY"), var("RPD_DRAIN_MS"))
    else {
        return;
    };
    let signals = Signals::install().unwrap();
    let store = EventStore::with_journal(Path::new(&journal), &mut crate::tests_journal::hasher()).unwrap();
    let metrics = Arc::new(Metrics::default());
    let d = Dispatcher::start(
        engine(),
        &doc(1_000_000),
        &["storm"],
        BudgetStore::local(),
        store,
        metrics,
        crate::DispatcherConfig { cap_events_in_progress: true, ..local_config() },
        vec![],
        events(30, "drain", &url),
    )
    .unwrap();
    let (d, drained) = d.wait_or_drain(&signals, Duration::from_millis(drain_ms.parse().unwrap()));
    let line = replica_summary(&d.store().all(), d.metrics(), d.budget().round_trips(), 0, drained);
    std::fs::write(summary, line.to_string()).unwrap();
}

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("rpd-drain-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// Run the child against a slow endpoint, SIGTERM it once `after`
/// requests arrived; returns its exit status, summary and what the
/// endpoint received.
fn sigterm_run(
    latency: Duration,
    drain_ms: u64,
    after: usize,
    tag: &str,
) -> (bool, serde_json::Value, Vec<(String, u32)>) {
    let (url, got) = slow_503(latency);
    let (journal, summary) = (temp(&format!("{tag}.jsonl")), temp(&format!("{tag}.json")));
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "tests_drain::drain_child", "--ignored", "--test-threads", "1", "-q"])
        .env("RPD_DRAIN_TARGET", &url)
        .env("RPD_DRAIN_JOURNAL", &journal)
        .env("RPD_DRAIN_SUMMARY", &summary)
        .env("RPD_DRAIN_MS", drain_ms.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while got.lock().unwrap().len() < after && t.elapsed() < Duration::from_secs(20) {
        thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    let line: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap_or_default()).unwrap_or_default();
    let received = got.lock().unwrap().clone();
    let _ = (std::fs::remove_file(&journal), std::fs::remove_file(&summary));
    (status.success(), line, received)
}

fn check_summary(line: &serde_json::Value, received: &[(String, u32)]) {
    assert_eq!(line["drained"], true, "{line}");
    let stopped: u64 = line["stop_reasons"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    let pending = line["pending"].as_u64().unwrap();
    assert_eq!(line["events"].as_u64().unwrap(), stopped + pending, "{line}");
    assert!(pending > 0, "a mid-run drain leaves events pending: {line}");
    let kinds = line["transport_errors"].as_object().unwrap();
    assert_eq!(kinds.len(), crate::transport_kind::ALL.len(), "{line}");
    assert!(line["store_errors"].is_u64() && line["budget_disagreements"].is_u64(), "{line}");
    let mut twice: HashMap<&(String, u32), u32> = HashMap::new();
    for r in received {
        *twice.entry(r).or_default() += 1;
    }
    assert!(twice.values().all(|&n| n == 1), "an attempt was sent twice: {received:?}");
    assert_eq!(line["attempts"].as_u64().unwrap(), received.len() as u64, "every attempt sent is counted: {line}");
}

#[test]
fn sigterm_mid_run_lets_attempts_in_flight_finish_and_exits_0_with_the_drained_summary() {
    let (ok, line, received) = sigterm_run(Duration::from_millis(300), 5_000, 6, "finish");
    assert!(ok, "the drained child exits 0");
    check_summary(&line, &received);
}

#[test]
fn an_attempt_outlasting_the_drain_is_abandoned_counted_and_its_event_left_pending() {
    let (ok, line, received) = sigterm_run(Duration::from_millis(3_000), 200, 4, "abandon");
    assert!(ok, "the drained child exits 0");
    check_summary(&line, &received);
    assert_eq!(line["stop_reasons"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>(), 0);
}

#[test]
fn with_the_replicas_cap_at_most_concurrency_events_are_in_progress_waits_for_a_retry_included() {
    let ep = crate::endpoints::Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let config = crate::DispatcherConfig { concurrency: 2, cap_events_in_progress: true, ..local_config() };
    let (records, _) =
        crate::tests::dispatch_with(config, BudgetStore::local(), &doc(1_000_000), vec![], events(6, "cap", &ep.url()));
    assert_eq!(records.len(), 6);
    for r in &records {
        // Events admitted before r and not stopped when r was admitted.
        let open = records
            .iter()
            .filter(|o| o.event_id != r.event_id)
            .filter(|o| {
                o.first_attempted_at_ms <= r.first_attempted_at_ms && o.finished_at_ms > r.first_attempted_at_ms
            })
            .count();
        assert!(open < 2, "{} admitted while {open} others were in progress", r.event_id);
        assert!(r.attempts > 1, "the 503s were retried: {r:?}");
    }
}
