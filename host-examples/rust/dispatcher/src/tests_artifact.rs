//! The artifact swapped under a running dispatcher: through the file watch
//! mid-run (every event accounted, `/metrics` showing the new sha256), an
//! explicit swap refused with the old artifact kept, and a bundle's document
//! following the artifact.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use retry_policy_host::artifact::container::{self, sha256_hex};
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::{ArtifactRef, PolicyEngine};

use crate::endpoints::Endpoint;
use crate::store::Status;
use crate::tests::{doc, local_config};
use crate::{BudgetStore, Dispatcher, DispatcherConfig, EventStore, Metrics, NewEvent};

/// A source that yields `events` in order and, from index `at` on, waits
/// (up to 60 s) until `open` is set: a test puts a swap between two known
/// sets of events whatever the machine's load (a larger artifact compiles
/// longer, and a swap raced against events' instants failed under load).
/// `yielded` counts the events handed out.
pub(crate) struct Gated {
    events: std::vec::IntoIter<NewEvent>,
    at: usize,
    pub open: Arc<AtomicBool>,
    pub yielded: Arc<AtomicUsize>,
}

impl Gated {
    pub(crate) fn new(events: Vec<NewEvent>, at: usize) -> Self {
        Gated { events: events.into_iter(), at, open: Arc::default(), yielded: Arc::default() }
    }
}

impl Iterator for Gated {
    type Item = NewEvent;
    fn next(&mut self) -> Option<NewEvent> {
        if self.yielded.load(Ordering::SeqCst) >= self.at {
            let t = Instant::now();
            while !self.open.load(Ordering::SeqCst) && t.elapsed() < Duration::from_secs(60) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let ev = self.events.next()?;
        self.yielded.fetch_add(1, Ordering::SeqCst);
        Some(ev)
    }
}

fn bundle(document: &str) -> Vec<u8> {
    container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, document)
}

fn spread(prefix: &str, n: u64, every_ms: u64, url: &str) -> Vec<NewEvent> {
    (0..n)
        .map(|i| NewEvent {
            event_id: format!("{prefix}-{i}"),
            endpoint_id: prefix.to_string(),
            target: url.to_string(),
            class: "storm".into(),
            at_ms: Some(i * every_ms),
        })
        .collect()
}

fn start(
    engine: PolicyEngine,
    document: &str,
    config: DispatcherConfig,
    src: impl Iterator<Item = NewEvent> + Send + 'static,
) -> (Dispatcher, Arc<Metrics>) {
    let m = Arc::new(Metrics::default());
    let d = Dispatcher::start(
        engine,
        document,
        &["storm"],
        BudgetStore::local(),
        EventStore::in_memory(),
        m.clone(),
        config,
        Vec::new(),
        Box::new(src.into_iter()),
    )
    .unwrap();
    (d, m)
}

fn until(what: &str, f: impl Fn() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn get_metrics(addr: std::net::SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn a_running_dispatcher_swaps_artifacts_through_the_file_watch_and_metrics_show_the_new_sha256() {
    let dir = std::env::temp_dir().join(format!("rpd-artifact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("retry_policy.wasm");
    std::fs::write(&path, EMBEDDED).unwrap();
    let ok = Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let broken = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let mut events = spread("ok", 40, 60, &ok.url());
    events.extend(spread("broken", 20, 120, &broken.url()));
    // Half the events before the swap, half after it.
    let src = Gated::new(events, 30);
    let (open, yielded) = (src.open.clone(), src.yielded.clone());
    let (d, m) = start(PolicyEngine::from_file(&path).unwrap(), &doc(1_000_000), local_config(), src);
    let server = m.serve("127.0.0.1:0").unwrap();
    let old = sha256_hex(EMBEDDED);
    assert!(get_metrics(server.addr()).contains(&format!(
        "webhook_policy_info{{artifact_sha256=\"{old}\",abi=\"webhook:retry-policy@0.3.0\",document_version=\"t1\"}} 1\n"
    )));
    d.watch_artifact(&path, Duration::from_millis(10)).unwrap();
    until("some first attempts", || ok.stats.requests() >= 5);

    let next = bundle(
        r#"{"version":"other","classes":{"x":{"window_ms":1000,"backoff":{"base_ms":1,"factor":2.0,"cap_ms":5}}}}"#,
    );
    let new = sha256_hex(&next);
    let tmp = dir.join("next.wasm");
    std::fs::write(&tmp, &next).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    until("the swap", || d.artifact_info().sha256 == new);
    let started_at_swap = yielded.load(Ordering::SeqCst);
    open.store(true, Ordering::SeqCst);
    let text = get_metrics(server.addr());
    // The document was the caller's (not the artifact's): it stays `t1`.
    assert!(
        text.contains(&format!(
            "artifact_sha256=\"{new}\",abi=\"webhook:retry-policy@0.3.0\",document_version=\"t1\"}} 1\n"
        )),
        "{text}"
    );
    assert!(!text.contains(&old), "the old series is gone: {text}");

    std::fs::write(&path, &EMBEDDED[..1000]).unwrap(); // a torn copy: refused, the new one kept
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(d.artifact_info().sha256, new);

    let recs = d.wait().store().all();
    assert!(started_at_swap < 60, "the swap happened mid-run ({started_at_swap} of 60 events started)");
    assert_eq!(recs.len(), 60, "every event accounted");
    assert!(recs.iter().all(|r| r.status != Status::Pending), "every event finished");
    let delivered = recs.iter().filter(|r| r.status == Status::Delivered).count();
    assert_eq!(delivered, 40);
    let hashes: std::collections::BTreeSet<&str> = recs.iter().map(|r| r.policy_hash.as_str()).collect();
    assert_eq!(hashes.len(), 1, "one document, one policy hash across the swap: {hashes:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_explicit_swap_to_a_bad_artifact_keeps_the_old_one_and_says_why() {
    let (d, m) =
        start(PolicyEngine::from_bytes(EMBEDDED).unwrap(), &doc(1_000_000), local_config(), Vec::new().into_iter());
    let e = d.swap_artifact(ArtifactRef::Bytes(&EMBEDDED[..500])).unwrap_err();
    assert_eq!(e.code(), "artifact_invalid");
    assert_eq!(d.artifact_info().sha256, sha256_hex(EMBEDDED));
    assert!(m.render().contains(&sha256_hex(EMBEDDED)));
    d.wait();
}

#[test]
fn a_bundles_document_follows_the_artifact_when_the_dispatcher_took_it_from_the_artifact() {
    let first = bundle(&doc(1_000_000).replace("\"t1\"", "\"bundle-1\""));
    let engine = PolicyEngine::from_bytes(&first).unwrap();
    let text = engine.info().document_json.clone().unwrap();
    let config = DispatcherConfig { document_from_artifact: true, ..local_config() };
    let (d, m) = start(engine, &text, config, Vec::new().into_iter());
    assert_eq!(d.policy_version(), "bundle-1");
    // A bundle without the class this dispatcher's events need is refused.
    let other = bundle(&doc(1_000_000).replace("\"storm\"", "\"other\""));
    let e = d.swap_artifact(ArtifactRef::Bytes(&other)).unwrap_err();
    assert_eq!(e.code(), "artifact_document_invalid");
    assert!(e.to_string().contains("no event class `storm`"), "{e}");
    let second = bundle(&doc(1_000_000).replace("\"t1\"", "\"bundle-2\""));
    let info = d.swap_artifact(ArtifactRef::Bytes(&second)).unwrap();
    assert_eq!(info.document_version.as_deref(), Some("bundle-2"));
    assert_eq!(d.policy_version(), "bundle-2");
    assert!(m.render().contains(&format!(
        "webhook_policy_info{{artifact_sha256=\"{}\",abi=\"webhook:retry-policy@0.3.0\",document_version=\"bundle-2\"}} 1",
        sha256_hex(&second)
    )));
    d.wait();
}
