extern crate std;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signer as _, SigningKey};

use super::*;
use crate::json::{self, Value};

const VECTORS: &str = include_str!("../../../tests/vectors-rollout/rollout.json");

#[test]
fn every_rollout_vector_passes_and_each_group_runs_all_its_cases() {
    let doc = json::parse(VECTORS).unwrap();
    let mut failures = Vec::new();
    for (group, count) in [("bucket", 11), ("select", 51), ("trust", 8), ("verify", 17)] {
        let Some(Value::Array(cases)) = doc.get(group) else { panic!("no group {group}") };
        assert_eq!(cases.len(), count, "{group}");
        for (i, case) in cases.iter().enumerate() {
            if let Err(e) = vectors::check_case(group, case) {
                let name = case.get("name").and_then(Value::as_str).map_or(format!("#{i}"), String::from);
                failures.push(format!("{group} {name}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_vector_with_an_unknown_field_is_broken() {
    let case = json::parse(r#"{"replica_id":"a","bucket":1,"extra":0}"#).unwrap();
    assert!(vectors::check_case("bucket", &case).unwrap_err().contains("unknown field `extra`"));
}

fn key() -> SigningKey {
    SigningKey::from_bytes(&[7u8; 32])
}

fn trust_pem(k: &SigningKey) -> String {
    let mut der = SPKI_PREFIX.to_vec();
    der.extend_from_slice(k.verifying_key().as_bytes());
    format!("junk before\n-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n", STANDARD.encode(der))
}

const RUNNING: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const NEW: &str = "2222222222222222222222222222222222222222222222222222222222222222";

fn follower() -> Follower {
    let me = Identity { replica_id: "go-a".into(), language: "go".into(), host: "h".into(), pid: 42 };
    Follower::new(me, TrustedKeys::parse(&trust_pem(&key())).unwrap(), 1_000)
}

fn running(now_ms: u64, events: u64) -> Running {
    Running { now_ms, sha256: RUNNING.into(), document_version: "v1".into(), events, dead_letters: 1 }
}

fn record(epoch: u64, stable: &str) -> String {
    format!(r#"{{"v":1,"epoch":{epoch},"stable":"{stable}","canary":null,"previous":[]}}"#)
}

fn signed(sha: &str) -> Fetched {
    let sig = STANDARD.encode(key().sign(&signed_message(sha)).to_bytes());
    Fetched {
        bytes: Some((sha.into(), 1000)),
        signature: Some(sig),
        key_id: Some(key_id(key().verifying_key().as_bytes())),
    }
}

/// Tick, then answer the tick call with `reply`.
fn tick(f: &mut Follower, now_ms: u64, reply: Result<Option<String>, String>) -> Step {
    let s = f.step(Input::Tick(running(now_ms, 10))).unwrap();
    assert!(matches!(s.call, Some(Call::Tick { .. })), "{s:?}");
    f.step(Input::TickReply(reply)).unwrap()
}

#[test]
fn a_tick_asks_for_the_status_write_and_the_record_read_in_one_call() {
    let mut f = follower();
    let s = f.step(Input::Tick(running(5_000, 10))).unwrap();
    let Some(Call::Tick { replica_id, status }) = s.call else { panic!("{s:?}") };
    assert_eq!(replica_id, "go-a");
    assert_eq!(
        status,
        format!(
            r#"{{"replica_id":"go-a","language":"go","host":"h","pid":42,"artifact_sha256":"{RUNNING}","document_version":"v1","since_ms":1000,"events":10,"dead_letters":1,"seen_ms":5000,"epoch":0,"refusal":null}}"#
        )
    );
}

#[test]
fn nothing_published_keeps_what_runs_and_settles_nothing() {
    let mut f = follower();
    for reply in [Ok(None), Ok(Some(String::new()))] {
        let s = tick(&mut f, 5_000, reply);
        assert_eq!(s, Step::default());
    }
    assert_eq!((f.settled, f.pending.is_none()), (0, true));
}

#[test]
fn a_record_naming_the_running_artifact_settles_its_epoch_without_a_fetch() {
    let mut f = follower();
    let s = tick(&mut f, 5_000, Ok(Some(record(3, RUNNING))));
    assert_eq!((s.call, f.settled), (None, 3));
}

#[test]
fn a_new_epoch_is_sized_fetched_checked_loaded_and_resets_since_and_the_counts() {
    let mut f = follower();
    let s = tick(&mut f, 5_000, Ok(Some(record(4, NEW))));
    assert_eq!(s.call, Some(Call::ArtifactLen { sha256: NEW.into(), key: artifact_key(NEW) }));
    let s = f.step(Input::ArtifactLen(Ok(1000))).unwrap();
    assert_eq!(s.call, Some(Call::Artifact { sha256: NEW.into(), key: artifact_key(NEW) }));
    let s = f.step(Input::Artifact(Ok(signed(NEW)))).unwrap();
    assert_eq!(s.call, Some(Call::Load { sha256: NEW.into() }));
    assert_eq!(f.settled, 0, "not settled before the load");
    let s = f.step(Input::Loaded(Ok(()))).unwrap();
    assert_eq!((s.swapped.as_deref(), f.settled, f.since_ms, f.base_events), (Some(NEW), 4, 5_000, 10));
    let Call::Tick { status, .. } = f.step(Input::Tick(running(6_000, 13))).unwrap().call.unwrap() else { panic!() };
    assert!(status.contains(r#""since_ms":5000,"events":3,"dead_letters":0"#), "{status}");
}

#[test]
fn a_store_failure_is_logged_once_per_run_and_its_end_once_and_settles_nothing() {
    let mut f = follower();
    let s = tick(&mut f, 5_000, Err("connection refused\nagain".into()));
    assert_eq!(
        s.log,
        vec![format!(
            "rollout: store unreachable, keeping sha256={RUNNING}, retrying every tick: connection refused again"
        )]
    );
    assert!(tick(&mut f, 5_500, Err("refused".into())).log.is_empty());
    // The record answers, but the tick goes on: the run of failures is not over.
    let s = tick(&mut f, 6_000, Ok(Some(record(4, NEW))));
    assert!(s.log.is_empty() && matches!(s.call, Some(Call::ArtifactLen { .. })), "{s:?}");
    // A failure mid-fetch is the same run (no line) and leaves the epoch unsettled.
    let s = f.step(Input::ArtifactLen(Err("timeout".into()))).unwrap();
    assert_eq!((s.call, s.log.len(), f.settled), (None, 0, 0));
    // The next tick fetches again; the run ends when a tick ends without a failure.
    assert!(matches!(tick(&mut f, 6_500, Ok(Some(record(4, NEW)))).call, Some(Call::ArtifactLen { .. })));
    f.step(Input::ArtifactLen(Ok(1000))).unwrap();
    f.step(Input::Artifact(Ok(signed(NEW)))).unwrap();
    let s = f.step(Input::Loaded(Ok(()))).unwrap();
    assert_eq!(
        (s.log, s.swapped.as_deref(), f.settled),
        (vec!["rollout: store reachable again".to_string()], Some(NEW), 4)
    );
}

#[test]
fn a_fetch_that_fails_at_every_tick_after_the_record_answers_is_logged_once() {
    let mut f = follower();
    let mut lines = Vec::new();
    for now_ms in [5_000, 5_500, 6_000] {
        lines.extend(tick(&mut f, now_ms, Ok(Some(record(4, NEW)))).log);
        lines.extend(f.step(Input::ArtifactLen(Ok(1000))).unwrap().log);
        lines.extend(f.step(Input::Artifact(Err("timeout".into()))).unwrap().log);
    }
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(lines[0].starts_with("rollout: store unreachable"));
}

#[test]
fn a_swap_the_host_made_itself_restarts_since_and_the_counts() {
    let mut f = follower();
    f.step(Input::Tick(running(2_000, 5))).unwrap();
    assert_eq!(f.step(Input::Swapped(running(3_000, 5))).unwrap(), Step::default());
    assert!(f.pending.is_some(), "a tick in progress goes on");
    let Call::Tick { status, .. } = f.step(Input::Tick(running(4_000, 8))).unwrap().call.unwrap() else { panic!() };
    assert!(status.contains(r#""since_ms":3000,"events":3,"dead_letters":0"#), "{status}");
}

#[test]
fn an_invalid_record_is_reported_once_per_distinct_text_with_no_sha256() {
    let mut f = follower();
    let s = tick(&mut f, 5_000, Ok(Some("{\"v\":2}".into())));
    let r = s.refused.unwrap();
    assert_eq!((r.sha256, r.code.as_str(), r.at_ms), (None, "rollout_record_invalid", 5_000));
    assert!(s.log[0].starts_with("policy artifact refused source=redis sha256=none code=rollout_record_invalid: "));
    assert_eq!(tick(&mut f, 5_500, Ok(Some("{\"v\":2}".into()))), Step::default());
    assert!(tick(&mut f, 6_000, Ok(Some("{\"v\":3}".into()))).refused.is_some());
    assert_eq!(f.settled, 0);
}

fn refusal_after_fetch(fetched: Fetched) -> Refusal {
    let mut f = follower();
    tick(&mut f, 5_000, Ok(Some(record(4, NEW))));
    f.step(Input::ArtifactLen(Ok(1000))).unwrap();
    let s = f.step(Input::Artifact(Ok(fetched))).unwrap();
    assert_eq!((s.call, f.settled), (None, 4), "a refusal settles the epoch");
    assert_eq!(tick(&mut f, 5_500, Ok(Some(record(4, NEW)))), Step::default(), "and is reported once");
    s.refused.unwrap()
}

#[test]
fn a_refused_artifact_names_its_code_settles_the_epoch_and_is_reported_once() {
    let mut bad_sig = signed(NEW);
    bad_sig.signature = Some(STANDARD.encode([0u8; 64]));
    assert_eq!(refusal_after_fetch(bad_sig).code, "rollout_signature_invalid");
    let mut unknown = signed(NEW);
    unknown.key_id = Some("0000000000000000".into());
    assert_eq!(refusal_after_fetch(unknown).code, "rollout_key_unknown");
    let mut missing = signed(NEW);
    missing.signature = None;
    assert_eq!(refusal_after_fetch(missing).code, "rollout_artifact_missing");
    let other = "3333333333333333333333333333333333333333333333333333333333333333";
    assert_eq!(refusal_after_fetch(signed(other)).code, "artifact_sha256_mismatch");
    let mut huge = signed(NEW);
    huge.bytes = Some((NEW.into(), MAX_ARTIFACT_BYTES + 1));
    assert_eq!(refusal_after_fetch(huge).code, "artifact_too_large");
}

#[test]
fn a_size_of_zero_or_over_the_cap_is_refused_before_the_bytes_are_fetched() {
    for (len, code) in [(0, "rollout_artifact_missing"), (MAX_ARTIFACT_BYTES + 1, "artifact_too_large")] {
        let mut f = follower();
        tick(&mut f, 5_000, Ok(Some(record(4, NEW))));
        let s = f.step(Input::ArtifactLen(Ok(len))).unwrap();
        assert_eq!((s.call, s.refused.unwrap().code.as_str()), (None, code));
    }
}

#[test]
fn a_load_the_host_refuses_is_reported_with_the_hosts_code_and_kept_in_the_status() {
    let mut f = follower();
    tick(&mut f, 5_000, Ok(Some(record(4, NEW))));
    f.step(Input::ArtifactLen(Ok(1000))).unwrap();
    f.step(Input::Artifact(Ok(signed(NEW)))).unwrap();
    let s = f.step(Input::Loaded(Err(("artifact_abi_mismatch".into(), "wrong ABI".into())))).unwrap();
    assert_eq!(s.log, vec![format!("policy artifact refused source=redis sha256={NEW} code=artifact_abi_mismatch: wrong ABI; keeping sha256={RUNNING}")]);
    let Call::Tick { status, .. } = f.step(Input::Tick(running(6_000, 10))).unwrap().call.unwrap() else { panic!() };
    assert!(status.ends_with(&format!(r#""epoch":4,"refusal":{{"sha256":"{NEW}","code":"artifact_abi_mismatch","message":"wrong ABI","at_ms":5000}}}}"#)), "{status}");
}

#[test]
fn an_answer_to_a_call_not_made_is_refused_and_changes_nothing() {
    let mut f = follower();
    let before = f.clone();
    let e = f.step(Input::ArtifactLen(Ok(3))).unwrap_err();
    assert_eq!(e.code(), "rollout_input_invalid");
    assert_eq!(e.message(), "artifact_len while the follower waits for a tick");
    assert_eq!(f, before);
    f.step(Input::Tick(running(5_000, 0))).unwrap();
    let waiting = f.clone();
    assert!(f.step(Input::Loaded(Ok(()))).unwrap_err().message().contains("waits for tick_reply"));
    assert_eq!(f, waiting);
}

#[test]
fn the_wire_opens_steps_and_keeps_the_whole_state_in_its_text() {
    let config = format!(
        r#"{{"replica_id":"go-a","language":"go","host":"h","pid":42,"trust_pem":{},"since_ms":1000}}"#,
        crate::journal::json_text::to_text(&Value::String(trust_pem(&key())))
    );
    let opened = json::parse(&wire::open(&config).unwrap()).unwrap();
    assert_eq!(
        opened.get("key_ids").unwrap(),
        &Value::Array(vec![Value::String(key_id(key().verifying_key().as_bytes()))])
    );
    let mut state = opened.get("state").and_then(Value::as_str).unwrap().to_string();
    let mut feed = |input: String| {
        let a = json::parse(&wire::step(&state, &input).unwrap()).unwrap();
        state = a.get("state").and_then(Value::as_str).unwrap().to_string();
        a
    };
    let tick = format!(
        r#"{{"op":"tick","now_ms":5000,"sha256":"{RUNNING}","document_version":"","events":0,"dead_letters":0}}"#
    );
    assert_eq!(feed(tick).get("call").and_then(|c| c.get("op")).and_then(Value::as_str), Some("tick"));
    let reply = format!(
        r#"{{"op":"tick_reply","text":{}}}"#,
        crate::journal::json_text::to_text(&Value::String(record(4, NEW)))
    );
    assert_eq!(
        feed(reply).get("call").and_then(|c| c.get("key")).and_then(Value::as_str),
        Some(artifact_key(NEW).as_str())
    );
    feed(r#"{"op":"artifact_len","len":1000}"#.into());
    let s = signed(NEW);
    let a = feed(format!(
        r#"{{"op":"artifact","sha256":"{NEW}","len":1000,"signature":"{}","key_id":"{}"}}"#,
        s.signature.unwrap(),
        s.key_id.unwrap()
    ));
    assert_eq!(a.get("call").and_then(|c| c.get("op")).and_then(Value::as_str), Some("load"));
    let a = feed(r#"{"op":"loaded"}"#.into());
    assert_eq!(a.get("swapped").and_then(Value::as_str), Some(NEW));
    assert!(state.contains(r#""settled":4"#), "{state}");
}

#[test]
fn bad_wire_input_is_a_typed_error_naming_what_was_wrong() {
    let f = follower();
    let opened = wire::open(&format!(
        r#"{{"replica_id":"a","language":"go","host":"h","pid":1,"trust_pem":{},"since_ms":0}}"#,
        crate::journal::json_text::to_text(&Value::String(trust_pem(&key())))
    ))
    .unwrap();
    let state = json::parse(&opened).unwrap().get("state").and_then(Value::as_str).unwrap().to_string();
    let cases = [
        (state.as_str(), "not json", "input: not JSON"),
        (state.as_str(), r#"{"op":"jump"}"#, "`op` must be tick"),
        (state.as_str(), r#"{"op":"tick","now_ms":1}"#, "tick: `sha256` must be a string"),
        (state.as_str(), r#"{"op":"loaded","extra":1}"#, "loaded: unknown field `extra`"),
        ("{}", r#"{"op":"loaded"}"#, "state: `v` must be a non-negative integer"),
        (state.as_str(), r#"{"op":"tick_reply"}"#, "tick_reply: `text` is missing"),
        (state.as_str(), r#"{"op":"tick_reply","text":"","error":"x"}"#, "tick_reply: unknown field `text`"),
        (state.as_str(), r#"{"op":"loaded","message":"boom"}"#, "give `code` and `message` together"),
        (state.as_str(), r#"{"op":"loaded","code":"x"}"#, "give `code` and `message` together"),
        (
            state.as_str(),
            r#"{"op":"artifact","sha256":null,"len":3,"signature":null,"key_id":null}"#,
            "`len` must be null",
        ),
        (
            state.as_str(),
            r#"{"op":"tick","now_ms":1,"sha256":"abc","document_version":"","events":0,"dead_letters":0}"#,
            "`sha256` must be a sha256",
        ),
    ];
    for (state, input, want) in cases {
        let e = wire::step(state, input).unwrap_err();
        assert_eq!(e.code(), "rollout_input_invalid");
        assert!(e.message().contains(want), "{input}: {e}");
    }
    let _ = f;
    let no_keys = r#"{"replica_id":"a","language":"go","host":"h","pid":1,"trust_pem":"nothing","since_ms":0}"#;
    assert_eq!(wire::open(no_keys).unwrap_err().code(), "rollout_trust_invalid");
    let empty_id = r#"{"replica_id":"","language":"go","host":"h","pid":1,"trust_pem":"","since_ms":0}"#;
    assert!(wire::open(empty_id).unwrap_err().message().contains("`replica_id` must be 1 to 200 bytes"));
}

#[test]
fn a_state_text_the_follower_did_not_write_is_refused() {
    let mut f = follower();
    tick(&mut f, 5_000, Ok(Some(record(4, NEW))));
    let text = wire::step_state_for_tests(&f).replace(NEW, "not-a-sha");
    let e = wire::step(&text, r#"{"op":"artifact_len","len":3}"#).unwrap_err();
    assert!(e.message().contains("`want` is not a sha256"), "{e}");
}
