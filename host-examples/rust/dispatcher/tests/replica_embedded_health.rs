//! The REPLICA executable run on an artifact whose embedded document is
//! format 3, with no `--policy` (`docs/artifact.md`, "Loading" step 6): its
//! class with `health` runs the format-3 send loop as `--policy` would, so a
//! `429 Retry-After` pauses the endpoint and the later events are held
//! (`holds.paused` in the summary); the same policy embedded as format 2
//! holds nothing.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use retry_policy_dispatcher::http_server::{Request, Response, Server};
use retry_policy_host::artifact::container;
use retry_policy_host::artifact::EMBEDDED;

const POLICY: &str = r#""window_ms":20000,"hard_cap":10,
  "backoff":{"base_ms":50,"factor":1.0,"cap_ms":50,"jitter":"none"},
  "budget":{"ratio":0.5,"window_ms":60000,"min_sample":50,"sliding":false}"#;

fn document(health: bool) -> String {
    let section = if health { r#","health":{"pause":{"max_ms":600000}}"# } else { "" };
    format!(r#"{{"version":"embedded-{health}","classes":{{"storm":{{{POLICY}{section}}}}}}}"#)
}

/// A receiver whose first request gets `429 Retry-After: 1`, the others 200.
fn receiver() -> Server {
    let seen = Arc::new(AtomicUsize::new(0));
    Server::start("127.0.0.1:0", move |_: &Request| {
        let mut r = Response::text(if seen.fetch_add(1, Ordering::SeqCst) == 0 { 429 } else { 200 }, "");
        if r.status == 429 {
            r.headers.push(("retry-after".into(), "1".into()));
        }
        r
    })
    .expect("a loopback receiver")
}

/// Run the replica on `document` bundled into the shipped artifact; its summary line.
fn replica_on_bundle(name: &str, document: &str) -> serde_json::Value {
    let dir = std::env::temp_dir().join(format!("rpd-embedded-health-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let artifact = dir.join("bundle.wasm");
    std::fs::write(&artifact, container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, document)).unwrap();
    let rx = receiver();
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy-dispatcher"))
        .args(["replica", "--artifact", artifact.to_str().unwrap(), "--target", &rx.url("/hook")])
        .args(["--endpoint-id", "ep", "--events", "5", "--rate", "10", "--concurrency", "4"])
        .args(["--allow-private-targets", "--deadline-ms", "10000"])
        .env_remove("RETRY_POLICY_ARTIFACT")
        .env_remove("RETRY_POLICY_ARTIFACT_SHA256")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("document_version=embedded-{}", document.contains("health"))), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn a_replica_without_policy_runs_the_embedded_format_3_health_and_holds_on_a_429_retry_after() {
    let summary = replica_on_bundle("f3", &document(true));
    assert!(summary["holds"]["paused"].as_u64().unwrap_or(0) >= 1, "{summary}");
    assert_eq!(summary["pending"], 0, "{summary}");
}

#[test]
fn a_replica_on_an_embedded_format_2_document_makes_no_hold() {
    let summary = replica_on_bundle("f2", &document(false));
    let holds: u64 = summary["holds"].as_object().unwrap().values().filter_map(|v| v.as_u64()).sum();
    assert_eq!(holds, 0, "{summary}");
    assert_eq!(summary["pending"], 0, "{summary}");
}
