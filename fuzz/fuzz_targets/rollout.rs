//! The rollout follower's wire (`rollout-step`, docs/rollout.md "The
//! follower in the component") never panics, whatever the host feeds it:
//! a script of inputs, each either drawn from the wire's own vocabulary
//! (ops, fields, values near the rules' edges) or raw bytes. Invariants:
//! a refused input is `rollout_input_invalid` and the host keeps its state
//! text; an accepted one answers every key, a state text the next step
//! takes, a known call or none, and `swapped` only to a `loaded` without a
//! code; the status record it asks to write is JSON.
#![no_main]
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use retry_policy_core::json::{self, Value};
use retry_policy_core::rollout::wire;

const SHA_A: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const SHA_B: &str = "2222222222222222222222222222222222222222222222222222222222222222";
/// An Ed25519 public key (RFC 8032's first test key), as a trust file holds it.
const TRUST: &str = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n";

fn pick<'a>(u: &mut Unstructured, xs: &[&'a str]) -> &'a str {
    u.choose(xs).copied().unwrap_or(xs[0])
}

fn number(u: &mut Unstructured) -> String {
    pick(u, &["0", "1", "1000", "4194304", "4194305", "9007199254740991", "18446744073709551615", "-1", "1.0", "1e3", "null", "\"1\""]).into()
}

fn string(u: &mut Unstructured) -> String {
    let record_a = format!(r#"{{"v":1,"epoch":3,"stable":"{SHA_A}","canary":null,"previous":[]}}"#);
    let record_b = format!(r#"{{"v":1,"epoch":4,"stable":"{SHA_B}","canary":{{"sha256":"{SHA_A}","percent":50}},"previous":[]}}"#);
    let choices = [SHA_A.to_string(), SHA_B.to_string(), String::new(), "x".into(), record_a, record_b, "0000000000000000".into()];
    let s = u.choose(&choices).cloned().unwrap_or_default();
    retry_policy_core::journal::json_text::to_text(&Value::String(s))
}

/// One input: mostly well-formed members of the vocabulary, sometimes raw bytes.
fn input(u: &mut Unstructured) -> String {
    if u.ratio(1, 8).unwrap_or(false) {
        let n = u.int_in_range(0..=64).unwrap_or(0);
        return String::from_utf8_lossy(u.bytes(n).unwrap_or(&[])).into_owned();
    }
    let op = pick(u, &["tick", "tick_reply", "artifact_len", "artifact", "loaded", "swapped", "jump"]);
    let fields = ["now_ms", "sha256", "document_version", "events", "dead_letters", "text", "error", "len", "signature", "key_id", "code", "message"];
    let mut members = vec![format!(r#""op":"{op}""#)];
    let n = u.int_in_range(0..=7).unwrap_or(0);
    for _ in 0..n {
        let f = pick(u, &fields);
        let v = if u.arbitrary::<bool>().unwrap_or(false) { number(u) } else { string(u) };
        members.push(format!(r#""{f}":{v}"#));
    }
    format!("{{{}}}", members.join(","))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let config = format!(
        r#"{{"replica_id":"fuzz","language":"rust","host":"h","pid":1,"trust_pem":{},"since_ms":0}}"#,
        retry_policy_core::journal::json_text::to_text(&Value::String(TRUST.into()))
    );
    let opened = json::parse(&wire::open(&config).expect("the config opens")).expect("JSON");
    let mut state = opened.get("state").and_then(Value::as_str).expect("a state").to_string();
    for _ in 0..u.int_in_range(1..=24).unwrap_or(1) {
        let text = input(&mut u);
        match wire::step(&state, &text) {
            Err(e) => assert_eq!(e.code(), "rollout_input_invalid", "{text}: {e}"),
            Ok(answer) => {
                let a = json::parse(&answer).expect("the answer is JSON");
                for k in ["state", "call", "log", "refused", "swapped"] {
                    assert!(a.get(k).is_some(), "no {k} in {answer}");
                }
                let call = a.get("call").expect("call");
                if let Some(op) = call.get("op").and_then(Value::as_str) {
                    assert!(["tick", "artifact_len", "artifact", "load"].contains(&op), "{answer}");
                    if let Some(status) = call.get("status").and_then(Value::as_str) {
                        json::parse(status).expect("the status record is JSON");
                    }
                }
                if !matches!(a.get("swapped"), Some(Value::Null)) {
                    assert!(text.contains(r#""op":"loaded""#) && !text.contains(r#""code""#), "{text} -> {answer}");
                }
                state = a.get("state").and_then(Value::as_str).expect("state").to_string();
            }
        }
    }
});
