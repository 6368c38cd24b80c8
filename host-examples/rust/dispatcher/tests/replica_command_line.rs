//! The REPLICA executable's summary and log as docs/replica.md and
//! docs/artifact.md state them: the summary counts the events of this run
//! (the ones it admits and the ones it resumes), never the rest of
//! `--store`'s journal; the artifact's load line names the version of the
//! document the run decides with, as `/metrics` does.

use std::path::Path;
use std::process::Command;

use retry_policy_dispatcher::http_server::{Request, Response, Server};

const POLICY: &str = r#"{"version":"command-line-test","classes":{"storm":{"window_ms":5000,"hard_cap":3,
  "backoff":{"base_ms":10,"factor":2.0,"cap_ms":20,"jitter":"none"}}}}"#;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rpd-command-line-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The replica against `target` with `--policy` and `extra`: (summary, stderr).
fn replica(dir: &Path, target: &str, events: u64, extra: &[&str]) -> (serde_json::Value, String) {
    let policy = dir.join("policy.json");
    std::fs::write(&policy, POLICY).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy-dispatcher"))
        .args(["replica", "--target", target, "--endpoint-id", "ep", "--events", &events.to_string()])
        .args(["--policy", policy.to_str().unwrap(), "--allow-private-targets", "--deadline-ms", "20000"])
        .args(extra)
        .env_remove("RETRY_POLICY_ARTIFACT")
        .env_remove("RETRY_POLICY_ARTIFACT_SHA256")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "{stderr}");
    let summary = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (summary, stderr)
}

#[test]
fn the_summary_counts_this_run_s_events_not_the_rest_of_the_store_s_journal() {
    let rx = Server::start("127.0.0.1:0", |_: &Request| Response::text(200, "")).expect("a loopback receiver");
    let dir = scratch("store");
    let journal = dir.join("journal.jsonl");
    let store = ["--store", journal.to_str().unwrap()];
    let (first, _) = replica(&dir, &rx.url("/hook"), 5, &store);
    assert_eq!((first["events"].as_u64(), first["stop_reasons"]["delivered"].as_u64()), (Some(5), Some(5)), "{first}");
    // Nothing pending in the journal: a resume-only run has no event.
    let (resume_only, _) = replica(&dir, &rx.url("/hook"), 0, &store);
    assert_eq!(resume_only["events"], 0, "{resume_only}");
    assert_eq!(resume_only["stop_reasons"]["delivered"], 0, "{resume_only}");
    // A third run on the same journal: its 3 events, not 8.
    let (third, _) = replica(&dir, &rx.url("/hook"), 3, &store);
    assert_eq!((third["events"].as_u64(), third["stop_reasons"]["delivered"].as_u64()), (Some(3), Some(3)), "{third}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_artifact_s_load_line_names_the_version_of_the_policy_document_it_runs() {
    let rx = Server::start("127.0.0.1:0", |_: &Request| Response::text(200, "")).expect("a loopback receiver");
    let dir = scratch("version");
    let (_, stderr) = replica(&dir, &rx.url("/hook"), 1, &[]);
    let line = stderr.lines().find(|l| l.contains("policy artifact loaded")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(line.contains(" document_version=command-line-test "), "{line}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `retry-policy-dispatcher replay` on `dir`'s policy and `journal`: its one JSON line.
fn replay(dir: &Path, journal: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy-dispatcher"))
        .args(["replay", "--store", journal.to_str().unwrap(), "--policy", dir.join("policy.json").to_str().unwrap()])
        .env_remove("RETRY_POLICY_ARTIFACT")
        .env_remove("RETRY_POLICY_ARTIFACT_SHA256")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn replayed_dead_letters_are_sent_by_the_next_run_from_their_first_attempt_and_never_replayed_twice() {
    let gone = Server::start("127.0.0.1:0", |_: &Request| Response::text(410, "")).expect("a loopback receiver");
    let ok = Server::start("127.0.0.1:0", |_: &Request| Response::text(200, "")).expect("a loopback receiver");
    let dir = scratch("replay");
    let journal = dir.join("journal.jsonl");
    let store = ["--store", journal.to_str().unwrap()];
    let (first, _) = replica(&dir, &gone.url("/hook"), 3, &store);
    assert_eq!(first["stop_reasons"]["terminal_response"], 3, "{first}");
    let r = replay(&dir, &journal);
    assert_eq!((r["replayed"].as_u64(), r["already_replayed"].as_u64()), (Some(3), Some(0)), "{r}");
    assert!(r["ids"].as_array().unwrap().iter().all(|id| id.as_str().unwrap().ends_with("~r1")), "{r}");
    let again = replay(&dir, &journal);
    assert_eq!((again["replayed"].as_u64(), again["already_replayed"].as_u64()), (Some(0), Some(3)), "{again}");
    // The replays keep their dead letters' target (410 again): each makes
    // its attempt 1 in this run, none was spent by the replay command.
    let (next, _) = replica(&dir, &ok.url("/hook"), 0, &store);
    let counts = (next["events"].as_u64(), next["first_attempts"].as_u64(), next["retries"].as_u64());
    assert_eq!(counts, (Some(3), Some(3), Some(0)), "{next}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The replica with `args` (and the contract's required flags): exit code and stderr.
fn replica_exit(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy-dispatcher"))
        .args(["replica", "--target", "http://127.0.0.1:1/", "--endpoint-id", "ep", "--events", "1"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.stdout.is_empty(), "nothing on stdout");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_rollout_flags_refuse_what_docs_replica_md_refuses_with_exit_2_naming_the_flag() {
    let dir = scratch("rollout-flags");
    let public = dir.join("team.pub");
    std::fs::write(&public, "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w=\n-----END PUBLIC KEY-----\n").unwrap();
    let not_a_key = dir.join("not-a-key.pem");
    std::fs::write(&not_a_key, "ed25519 34750f98bd59fcfc\n").unwrap();
    let (public, not_a_key) = (public.to_str().unwrap(), not_a_key.to_str().unwrap());
    let redis = "redis://127.0.0.1:1/0";
    let too_long = "x".repeat(201);
    for (args, says) in [
        (vec!["--artifact-from-redis", "--trust-key", public], "--artifact-from-redis needs --redis"),
        (vec!["--artifact-from-redis", "--redis", redis], "--trust-key"),
        (vec!["--trust-key", public], "--trust-key is only for --artifact-from-redis"),
        (
            vec!["--artifact-from-redis", "--redis", redis, "--trust-key", public, "--watch-artifact-ms", "100"],
            "--watch-artifact-ms",
        ),
        (vec!["--artifact-from-redis", "--redis", redis, "--trust-key", not_a_key], "rollout_trust_invalid"),
        (vec!["--artifact-from-redis", "--redis", redis, "--trust-key", "/nonexistent.pub"], "rollout_trust_invalid"),
        (vec!["--replica-id", ""], "--replica-id"),
        (vec!["--replica-id", &too_long], "--replica-id"),
        (vec!["--rollout-poll-ms", "49"], "--rollout-poll-ms"),
        (vec!["--rollout-poll-ms", "60001"], "--rollout-poll-ms"),
        (vec!["--rollout-poll-ms", "soon"], "--rollout-poll-ms"),
    ] {
        let (code, err) = replica_exit(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
