//! End-to-end: signed deliveries with a secret reloaded after a 401, and
//! secrets that stay out of records, logs and metrics.

use std::sync::{Arc, Mutex};

use retry_policy_core::StopReason;

use crate::http_server::{Response, Server};
use crate::signing::{verify, Secret, SecretSource, Signer};
use crate::tests::{dispatch_with, doc, events, local_config};
use crate::BudgetStore;

/// Gives `key-1` first, `key-2` after the first reload.
struct Rotating(Arc<Mutex<u32>>);

impl SecretSource for Rotating {
    fn load(&self, _endpoint: &str) -> Result<Vec<Secret>, String> {
        let mut n = self.0.lock().unwrap();
        *n += 1;
        Ok(vec![Secret::from_bytes(format!("key-{n}").into_bytes())])
    }
}

/// Accepts only webhooks signed with `key-2` (401 otherwise).
fn receiver() -> Server {
    let key = [Secret::from_bytes(b"key-2".to_vec())];
    Server::start("127.0.0.1:0", move |req| {
        let now_s = crate::dispatcher::now_ms() / 1000;
        let h = |n| req.header(n);
        match verify(&key, h("webhook-id"), h("webhook-timestamp"), h("webhook-signature"), &req.body, now_s, 300) {
            Ok(()) => Response::text(200, "ok\n"),
            Err(e) => Response::text(401, format!("{e}\n")),
        }
    })
    .unwrap()
}

#[test]
fn a_401_reloads_the_endpoints_secret_and_the_retry_signed_with_it_is_delivered() {
    let server = receiver();
    let loads = Arc::new(Mutex::new(0));
    let mut config = local_config();
    config.concurrency = 1;
    config.signer = Some(Arc::new(Signer::new(Box::new(Rotating(loads.clone())))));
    let (recs, _) =
        dispatch_with(config, BudgetStore::local(), &doc(50), Vec::new(), events(3, "signed", &server.url("/")));
    for r in &recs {
        assert_eq!(r.stop_reason, Some(StopReason::Delivered), "{r:?}");
    }
    // The first event got a 401 with key-1, the reload gave key-2; the
    // others were signed with key-2 from their first attempt.
    assert_eq!(recs.iter().filter(|r| r.credentials_refreshed).count(), 1);
    assert_eq!((recs.iter().map(|r| r.attempts).sum::<u32>(), *loads.lock().unwrap()), (4, 2));
}

struct Missing;

impl SecretSource for Missing {
    fn load(&self, endpoint: &str) -> Result<Vec<Secret>, String> {
        Err(format!("no signing secret for endpoint `{endpoint}`"))
    }
}

#[test]
fn an_endpoint_without_a_secret_gets_no_unsigned_request() {
    let server = receiver();
    let mut config = local_config();
    config.signer = Some(Arc::new(Signer::new(Box::new(Missing))));
    let (recs, _) =
        dispatch_with(config, BudgetStore::local(), &doc(50), Vec::new(), events(2, "nosecret", &server.url("/")));
    for r in &recs {
        assert_eq!(
            (r.last_outcome.as_str(), r.stop_reason),
            ("credentials_unavailable", Some(StopReason::TerminalResponse))
        );
    }
}

/// Markers planted in a target's query and userinfo, a Redis password and
/// signing secrets; none may come out of the process or its dead letters.
const MARKERS: [&str; 5] = ["QUERYSECRET1", "REDISSECRET2", "SIGNSECRET3", "SIGNSECRET4", "USERSECRET5"];

/// The child: a run where every secret is used and every error path is hit.
#[test]
#[ignore = "run as a child process by the secrets test"]
fn secrets_child() {
    let Ok(journal) = std::env::var("RPD_SECRETS_JOURNAL") else { return };
    let dir = std::path::Path::new(&journal).parent().unwrap().to_path_buf();
    let broken = crate::endpoints::Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let port = broken.server.addr().port();
    let secrets = dir.join("secrets.json");
    let b64 = |s: &str| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(s)
    };
    let file =
        format!(r#"{{"ep": "whsec_{} whsec_{}", "ep-bad": "whsec_!!SIGNSECRET4!!"}}"#, b64("SIGNSECRET3"), b64("x"));
    std::fs::write(&secrets, file).unwrap();
    let targets = [
        ("ep", format!("http://127.0.0.1:{port}/hook?token=QUERYSECRET1#frag")),
        ("ep", format!("http://user:USERSECRET5@127.0.0.1:{port}/hook")),
        ("ep-bad", format!("http://127.0.0.1:{port}/hook?token=QUERYSECRET1")),
    ];
    let source = (0..12).map(move |i| {
        let (ep, url) = &targets[i % 3];
        crate::NewEvent {
            event_id: format!("s-{i}"),
            endpoint_id: ep.to_string(),
            target: url.clone(),
            class: "storm".into(),
            at_ms: None,
        }
    });
    let mut config = local_config();
    config.signer = Some(Arc::new(Signer::new(Box::new(crate::signing::FileSecrets(secrets)))));
    let budget = BudgetStore::redis("redis://:REDISSECRET2@127.0.0.1:1/0").unwrap();
    let metrics = Arc::new(crate::Metrics::default());
    let store =
        crate::EventStore::with_journal(std::path::Path::new(&journal), &mut crate::tests_journal::hasher()).unwrap();
    let d = crate::Dispatcher::start(
        crate::tests::engine(),
        &doc(1),
        &["storm"],
        budget,
        store,
        metrics.clone(),
        config,
        Vec::new(),
        Box::new(source),
    )
    .unwrap()
    .wait();
    println!("{}", metrics.render());
    println!("{:?}", d.budget().round_trips());
    for r in d.store().all() {
        println!("{} {} {:?}", r.to_json(), r.last_outcome, r.dead_letter);
    }
}

#[test]
fn no_query_string_userinfo_redis_password_or_signing_secret_reaches_logs_metrics_or_dead_letters() {
    let dir = std::env::temp_dir().join(format!("rpd-secrets-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let journal = dir.join("events.jsonl");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "tests_safety::secrets_child", "--ignored", "--nocapture", "--test-threads", "1"])
        .env("RPD_SECRETS_JOURNAL", &journal)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The run hit every path: signed 503s, no budget (Redis down), a bad secret, a userinfo URL.
    for seen in ["budget store error", "not sent", "credentials_unavailable", "invalid_url", "webhook_deadletter_total"]
    {
        assert!(stdout.contains(seen) || stderr.contains(seen), "{seen} missing:\n{stdout}\n{stderr}");
    }
    let b64 = |s: &str| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(s)
    };
    let dead_letters: Vec<String> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .filter(|l| l.contains(r#""type":"event""#) && !l.contains(r#""status":"pending""#))
        .map(String::from)
        .collect();
    assert_eq!(dead_letters.len(), 12, "one final record per event");
    let all = format!("{stdout}\n{stderr}\n{}", dead_letters.join("\n"));
    for m in MARKERS.iter().map(|m| m.to_string()).chain([b64("SIGNSECRET3")]) {
        assert!(!all.contains(&m), "{m} leaked:\n{all}");
    }
    assert!(!all.to_ascii_lowercase().contains("authorization"));
    let _ = std::fs::remove_dir_all(&dir);
}
