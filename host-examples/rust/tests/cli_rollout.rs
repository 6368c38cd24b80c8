//! `retry-policy publish` and `retry-policy rollout ...` run as a user
//! would, where no Redis is needed: usage errors exit 2 naming the flag, a
//! store that cannot be reached exits 1, an artifact a replica would refuse
//! is refused (exit 1) before the store is touched. (Against a real Redis:
//! the dispatcher's `tests_rollout.rs`.)
#![cfg(feature = "rollout")]

use std::process::Command;

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy"))
        .args(args)
        .env_remove("RETRY_POLICY_ARTIFACT_SHA256")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

const ARTIFACT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/artifact/retry_policy.wasm");

/// A PKCS#8 Ed25519 key file (seed 32 times 7) in the temp dir, one file
/// per call: the tests run on parallel threads of one process, and a shared
/// path let one test's rewrite (truncate, then write) be read half-written
/// by another's CLI (a CI failure: `rollout_key_invalid` on a valid key).
fn key_file() -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let pem = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH\n-----END PRIVATE KEY-----\n";
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("rp-cli-rollout-{}-{n}.key", std::process::id()));
    std::fs::write(&path, pem).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn help_names_publish_and_the_rollout_commands() {
    let (code, out, _) = cli(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("publish") && out.contains("rollout"), "{out}");
    let (code, out, _) = cli(&["rollout", "--help"]);
    assert_eq!(code, 0);
    for command in ["status", "promote", "rollback"] {
        assert!(out.contains(command), "{out}");
    }
}

#[test]
fn publish_usage_errors_exit_2_naming_what_is_wrong() {
    let key = key_file();
    let redis = "redis://127.0.0.1:1/0";
    for (args, names) in [
        (vec!["publish", ARTIFACT, "--redis", redis], "--key"),
        (vec!["publish", ARTIFACT, "--key", &key], "--redis"),
        (vec!["publish", ARTIFACT, "--key", &key, "--redis", redis, "--redis-cluster", redis], "not both"),
        (vec!["publish", ARTIFACT, "--key", &key, "--redis", redis, "--canary", "0"], "--canary"),
        (vec!["publish", ARTIFACT, "--key", &key, "--redis", redis, "--canary", "101"], "--canary"),
        (vec!["publish", ARTIFACT, "--key", &key, "--redis", "http://127.0.0.1:1"], "Redis URL"),
        (vec!["publish", ARTIFACT, "--key", ARTIFACT, "--redis", redis], "rollout_key_invalid"),
        (vec!["publish", "/nonexistent.wasm", "--key", &key, "--redis", redis], "artifact_unreadable"),
    ] {
        let (code, out, err) = cli(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(names) && out.is_empty(), "{args:?}: {err}");
    }
}

#[test]
fn an_artifact_a_replica_would_refuse_is_refused_with_its_code_before_the_store_is_asked() {
    let bad = std::env::temp_dir().join(format!("rp-cli-rollout-{}.wasm", std::process::id()));
    std::fs::write(&bad, b"\0asm not a component").unwrap();
    // The store is unreachable: the refusal comes first, from the artifact's own checks.
    let (code, _, err) =
        cli(&["publish", bad.to_str().unwrap(), "--key", &key_file(), "--redis", "redis://127.0.0.1:1/0"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("artifact_invalid"), "{err}");
}

#[test]
fn an_unreachable_store_exits_1_for_every_command() {
    let redis = "redis://127.0.0.1:1/0";
    let key = key_file();
    for args in [
        vec!["publish", ARTIFACT, "--key", &key, "--redis", redis],
        vec!["rollout", "status", "--redis", redis],
        vec!["rollout", "promote", "--redis", redis],
        vec!["rollout", "rollback", "--redis", redis],
    ] {
        let (code, _, err) = cli(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains("store failed"), "{args:?}: {err}");
    }
}
