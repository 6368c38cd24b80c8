//! The REPLICA executable following a fleet rollout (docs/rollout.md)
//! against a throwaway `redis-server` on loopback: its first tick, before
//! any event, swaps in the published stable artifact (told by the load
//! line, `source=redis`); a publish mid-run is swapped in without losing an
//! event; an artifact signed by an untrusted key is refused once.

use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use retry_policy_dispatcher::http_server::{Request, Response, Server};
use retry_policy_host::artifact::container::{self, sha256_hex};
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::cli::rollout::publish;
use retry_policy_host::rollout::{admin, PrivateKey};

/// A redis-server on a free loopback port, killed on drop.
struct Redis(std::process::Child, u16);

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn redis(dir: &std::path::Path) -> Option<Redis> {
    let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
    let child = Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(child) = child else {
        eprintln!("SKIPPED: redis-server is not installed");
        return None;
    };
    let t = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(t.elapsed() < Duration::from_secs(10), "redis-server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(Redis(child, port))
}

/// A PKCS#8 Ed25519 key (seed: 32 times `byte`) in `dir`: its path and key.
fn key(dir: &std::path::Path, byte: u8) -> (String, PrivateKey) {
    let mut der = vec![0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
    der.extend([byte; 32]);
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let pem = format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n");
    let path = dir.join(format!("{byte}.key"));
    std::fs::write(&path, &pem).unwrap();
    (path.to_string_lossy().into_owned(), PrivateKey::parse(&pem).unwrap())
}

/// The shipped artifact with a document (class `storm`) of `version`: its path and sha256.
fn artifact(dir: &std::path::Path, version: &str) -> (String, String) {
    let doc = format!(
        r#"{{"version":"{version}","classes":{{"storm":{{"window_ms":5000,"hard_cap":3,"backoff":{{"base_ms":10,"factor":2.0,"cap_ms":20,"jitter":"none"}}}}}}}}"#
    );
    let bytes = container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, &doc);
    let path = dir.join(format!("{version}.wasm"));
    std::fs::write(&path, &bytes).unwrap();
    (path.to_string_lossy().into_owned(), sha256_hex(&bytes))
}

#[test]
fn a_replica_starts_on_the_published_artifact_follows_a_publish_mid_run_and_refuses_an_untrusted_one_once() {
    let dir = std::env::temp_dir().join(format!("rpd-replica-rollout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let Some(server) = redis(&dir) else { return };
    let url = format!("redis://127.0.0.1:{}/0", server.1);
    let (team, private) = key(&dir, 1);
    let (other, _) = key(&dir, 2);
    let trust = dir.join("team.pub");
    std::fs::write(&trust, private.public_key_pem()).unwrap();
    let ((v1, sha1), (v2, sha2), (v3, sha3)) = (artifact(&dir, "v1"), artifact(&dir, "v2"), artifact(&dir, "v3"));
    let mut conn =
        admin::connect(&url, false, Duration::from_secs(5), &retry_policy_host::tls::TrustRoots::default()).unwrap();
    publish(conn.as_mut(), &v1, &team, None).unwrap();
    let rx = Server::start("127.0.0.1:0", |_: &Request| Response::text(200, "")).expect("a loopback receiver");
    let replica = Command::new(env!("CARGO_BIN_EXE_retry-policy-dispatcher"))
        .args(["replica", "--target", &rx.url("/hook"), "--endpoint-id", "ep", "--events", "100", "--rate", "20"])
        .args(["--allow-private-targets", "--redis", &url, "--artifact-from-redis", "--trust-key"])
        .arg(&trust)
        .args(["--replica-id", "rust-a", "--rollout-poll-ms", "50"])
        .env_remove("RETRY_POLICY_ARTIFACT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Each publish waits for the replica's status record to show the step before it.
    let mut watch =
        admin::connect(&url, false, Duration::from_secs(5), &retry_policy_host::tls::TrustRoots::default()).unwrap();
    let mut running = |want: &str| {
        let t = Instant::now();
        loop {
            let status: Option<String> =
                redis::cmd("HGET").arg("retry-policy:{rollout}:replicas").arg("rust-a").query(watch.as_mut()).unwrap();
            let v: serde_json::Value = status.map_or(serde_json::Value::Null, |s| serde_json::from_str(&s).unwrap());
            if v["artifact_sha256"] == want {
                return v;
            }
            assert!(t.elapsed() < Duration::from_secs(20), "the replica never reported {want}: {v}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let first = running(&sha1);
    assert_eq!(first["epoch"], 1);
    publish(conn.as_mut(), &v2, &team, None).unwrap();
    let second = running(&sha2);
    assert!(second["since_ms"].as_u64() > first["since_ms"].as_u64(), "since_ms moves with the swap");
    publish(conn.as_mut(), &v3, &other, None).unwrap();
    let out = replica.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    let loaded = stderr.lines().find(|l| l.contains("policy artifact loaded")).unwrap_or_default();
    assert!(loaded.contains(&sha1) && loaded.ends_with("source=redis"), "{stderr}");
    assert!(stderr.contains(&format!("policy artifact swapped sha256={sha1} -> {sha2}")), "{stderr}");
    let refused: Vec<&str> = stderr.lines().filter(|l| l.contains("policy artifact refused")).collect();
    assert_eq!(refused.len(), 1, "{stderr}");
    assert!(refused[0].contains(&format!("sha256={sha3} code=rollout_key_unknown")), "{}", refused[0]);
    assert!(refused[0].ends_with(&format!("keeping sha256={sha2}")), "{}", refused[0]);
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!((summary["events"].as_u64(), summary["stop_reasons"]["delivered"].as_u64()), (Some(100), Some(100)));
    assert_eq!(summary["pending"], 0, "nothing lost across the swap");
    let _ = std::fs::remove_dir_all(&dir);
}
