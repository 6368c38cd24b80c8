use super::*;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

const RUN: &str = "--target http://127.0.0.1:9/ --endpoint-id ep --events 3";

/// `replica RUN extra`'s settings, `$RETRY_POLICY_ARTIFACT` as `env`.
fn replica(extra: &str, env: Option<&str>) -> Result<ReplicaSettings, String> {
    match judge_with("replica", &args(&format!("{RUN} {extra}")), env.map(String::from))? {
        Judged::Replica(s) => Ok(*s),
        other => panic!("{extra}: {other:?}"),
    }
}

#[test]
fn every_flag_of_the_core_s_answer_lands_in_a_setting() {
    let all = "--concurrency 4 --policy p.json --artifact a.wasm --redis redis://h:1/2 --artifact-from-redis \
               --trust-key k.pem --replica-id me --rollout-poll-ms 60 --ca-file ca.pem --store-timeout-ms 7 \
               --attempt-deadline-ms 8 --deadline-ms 9 --drain-ms 10 --clock-offset-ms -11 --store j --resume r \
               --metrics-addr :9100 --allow-private-targets --rate 2.5 --signing-secrets s.json --class c \
               --connect-timeout-ms 12 --no-skew-check --watch-policy";
    let s = replica(all, None).unwrap();
    assert_eq!(
        (s.target.as_str(), s.endpoint_id.as_str(), s.events, s.concurrency),
        ("http://127.0.0.1:9/", "ep", 3, 4)
    );
    let paths = [&s.policy, &s.artifact, &s.trust_key, &s.ca_file, &s.store, &s.resume, &s.signing_secrets];
    let paths: Vec<Option<&str>> = paths.iter().map(|p| p.as_deref()).collect();
    let want = ["p.json", "a.wasm", "k.pem", "ca.pem", "j", "r", "s.json"];
    assert_eq!(paths, want.map(Some));
    assert_eq!((s.redis.as_deref(), s.redis_cluster.as_deref()), (Some("redis://h:1/2"), None));
    assert_eq!((s.replica_id.as_str(), s.rollout_poll_ms, s.class.as_str()), ("me", 60, "c"));
    let ms =
        (s.store_timeout_ms, s.attempt_deadline_ms, s.deadline_ms, s.drain_ms, s.clock_offset_ms, s.connect_timeout_ms);
    assert_eq!(ms, (7, 8, Some(9), 10, -11, 12));
    assert_eq!(s.metrics_addr.as_ref().map(HostPort::bind).as_deref(), Some("127.0.0.1:9100"));
    assert_eq!(s.rate, Some(2.5));
    assert!(s.artifact_from_redis && s.allow_private_targets && s.no_skew_check && s.watch_policy);
    assert_eq!(s.watch_artifact_ms, None);
}

#[test]
fn absent_flags_take_the_core_s_defaults_and_the_replica_id_is_rust_hostname_pid() {
    let s = replica("", None).unwrap();
    let id = format!("rust-{}-{}", retry_policy_host::rollout::hostname(), std::process::id());
    assert_eq!(s.replica_id, id);
    assert_eq!((s.concurrency, s.class.as_str(), s.connect_timeout_ms, s.store_timeout_ms), (8, "storm", 2000, 250));
    assert_eq!((s.artifact, s.metrics_addr.is_none(), s.rate), (None, true, None));
}

#[test]
fn the_artifact_is_the_flag_s_else_the_environment_s_and_watching_needs_one() {
    assert_eq!(replica("", Some("env.wasm")).unwrap().artifact.as_deref(), Some("env.wasm"));
    assert_eq!(replica("--artifact a.wasm", Some("env.wasm")).unwrap().artifact.as_deref(), Some("a.wasm"));
    let watched = replica("--watch-artifact-ms 5", Some("env.wasm")).unwrap();
    assert_eq!((watched.artifact.as_deref(), watched.watch_artifact_ms), (Some("env.wasm"), Some(5)));
    let e = replica("--watch-artifact-ms 5", None).unwrap_err();
    assert!(e.starts_with("--watch-artifact-ms needs --artifact"), "{e}");
}

#[test]
fn component_is_the_old_name_of_artifact_for_the_replica_only() {
    assert_eq!(replica("--component c.wasm", None).unwrap().artifact.as_deref(), Some("c.wasm"));
    assert_eq!(replica("--component=c.wasm", None).unwrap().artifact.as_deref(), Some("c.wasm"));
    assert_eq!(replica("--components c.wasm", None).unwrap_err(), "unknown argument \"--components\"");
    let replay = judge_with("replay", &args("--store j --policy p --component c.wasm"), None).unwrap_err();
    assert_eq!(replay, "unknown argument \"--component\"");
}

#[test]
fn an_ipv6_metrics_address_is_bound_in_brackets() {
    let s = replica("--metrics-addr [::1]:0", None).unwrap();
    assert_eq!(s.metrics_addr.map(|a| a.bind()).as_deref(), Some("[::1]:0"));
}

#[test]
fn bad_values_and_rules_are_the_core_s_one_line_naming_the_flag() {
    for (extra, says) in [
        ("--drain-ms soon", "--drain-ms: expected a whole number >= 0, got \"soon\""),
        ("--concurrency 0", "--concurrency: expected a whole number from 1 to 65535, got \"0\""),
        ("--rate 0", "--rate: expected a finite number > 0, got \"0\""),
        ("--redis redis://a:1 --redis-cluster redis://b:1", "--redis and --redis-cluster are exclusive"),
        ("--trust-key k.pem", "--trust-key is only for --artifact-from-redis"),
        ("--replica-id=", "--replica-id: must not be empty"),
    ] {
        assert_eq!(replica(extra, None).unwrap_err(), says, "{extra}");
    }
    let e = judge_with("replica", &args("--endpoint-id ep --events 1"), None).unwrap_err();
    assert_eq!(e, "--target is required");
}
