//! The document driver of the cross-host document run (`tests/differential/docs`),
//! natively (policy-core) or through the component in wasmtime:
//!
//!   docs --host native|wasmtime < documents.jsonl > results.jsonl
//!
//! Reads `{"name", "text"}` lines (from `docgen.py`), loads each text as a
//! policy document and admits every class at `now_ms = 1000`; writes one
//! line per document, the shape every host's driver writes:
//! `{"name", "error": [code, field]}` or
//! `{"name", "version", "classes": [[name, policy_hash, deadline_ms, max_attempts, expected_span_ms], ...]}`.
//! A trap (wasmtime) is written as `{"name", "trap": message}`.
//! Every text is also loaded as a format-3 document (`load-health-document`),
//! written under `"health"`: `{"version", "classes": [[name, policy_hash], ...]}`
//! (the hash covers the class's effective section) or `{"error": [code, field]}`.

use std::io::{BufRead, BufWriter, Write};

use retry_policy_core::document::PolicyDocument;
use retry_policy_core::PolicyError;
use serde_json::{json, Value};

const NOW_MS: u64 = 1000;

/// The result line of a loaded document: its version, then each class
/// admitted with `admit`, or the refusal of the first class that is not,
/// naming it.
fn answer<E>(
    version: &str,
    names: Vec<String>,
    mut admit: impl FnMut(&str) -> Result<Value, E>,
    refused: impl Fn(E) -> Value,
) -> Value {
    let mut classes = Vec::new();
    for name in &names {
        match admit(name) {
            Ok(row) => classes.push(row),
            Err(e) => {
                let mut v = refused(e);
                v["admitting"] = json!(name);
                return v;
            }
        }
    }
    json!({"version": version, "classes": classes})
}

fn native_health(text: &str) -> Value {
    match retry_policy_core::health::HealthDocument::from_json(text) {
        Ok(d) => {
            let classes: Vec<Value> = d
                .health
                .iter()
                .map(|(name, h)| {
                    let p = d.document.class(name).expect("a parsed class");
                    json!([name, format!("{:016x}", retry_policy_core::health::policy_hash(p, h.as_ref()))])
                })
                .collect();
            json!({"version": d.document.version, "classes": classes})
        }
        Err(e) => json!({"error": [e.code.as_str(), e.field]}),
    }
}

fn native(text: &str) -> Value {
    let refused = |e: PolicyError| json!({"error": [e.code.as_str(), e.field]});
    let doc = match PolicyDocument::from_json(text) {
        Ok(d) => d,
        Err(e) => return refused(e),
    };
    let names = doc.classes.iter().map(|(n, _)| n.clone()).collect();
    answer(
        &doc.version,
        names,
        |name| {
            let a = doc.admit(name, NOW_MS)?;
            Ok(json!([a.class, a.policy_hash, a.deadline_ms, a.plan.max_attempts, a.plan.expected_span_ms]))
        },
        refused,
    )
}

#[cfg(feature = "wasm")]
mod wasm {
    use retry_policy_host::{FakeClock, HostError, InMemoryStore, PolicyEngine, PolicyInstance};
    use serde_json::{json, Value};

    pub fn instance() -> PolicyInstance {
        let engine =
            PolicyEngine::load_default().expect("load the artifact ($RETRY_POLICY_ARTIFACT or the embedded copy)");
        engine.instantiate(FakeClock::new(0), InMemoryStore::new()).expect("instantiate")
    }

    fn refused(e: HostError) -> Value {
        match e {
            HostError::Policy(e) => json!({"error": [e.code.as_str(), e.field]}),
            other => json!({"trap": other.to_string()}),
        }
    }

    pub fn health(inst: &mut PolicyInstance, text: &str) -> Value {
        match inst.load_health_document(text) {
            Ok(d) => {
                let classes: Vec<Value> = d.classes.iter().map(|c| json!([c.name, c.policy_hash])).collect();
                json!({"version": d.version, "classes": classes})
            }
            Err(e) => refused(e),
        }
    }

    pub fn run(inst: &mut PolicyInstance, text: &str) -> Value {
        let doc = match inst.load_document(text) {
            Ok(d) => d,
            Err(e) => return refused(e),
        };
        let names = doc.classes.iter().map(|c| c.name.clone()).collect();
        super::answer(
            &doc.version,
            names,
            |name| {
                let a = inst.admit(&doc, name, super::NOW_MS)?;
                Ok(json!([a.class, a.policy_hash, a.deadline_ms, a.schedule.max_attempts, a.schedule.expected_span_ms]))
            },
            refused,
        )
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let host = match (args.next().as_deref(), args.next()) {
        (Some("--host"), Some(h)) => h,
        _ => {
            eprintln!("usage: docs --host native|wasmtime < documents.jsonl");
            std::process::exit(2);
        }
    };
    #[cfg(feature = "wasm")]
    let mut inst = (host == "wasmtime").then(wasm::instance);
    if host != "native" && !(cfg!(feature = "wasm") && host == "wasmtime") {
        eprintln!("docs: unknown host {host} (wasmtime needs --features wasm)");
        std::process::exit(2);
    }
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let line = line.expect("read stdin");
        let case: Value = serde_json::from_str(&line).expect("a {name, text} line");
        let (Some(name), Some(text)) = (case["name"].as_str(), case["text"].as_str()) else {
            panic!("a {{name, text}} line: {line}")
        };
        #[cfg(feature = "wasm")]
        let mut r = match inst.as_mut() {
            Some(inst) => {
                let mut r = wasm::run(inst, text);
                r["health"] = wasm::health(inst, text);
                r
            }
            None => {
                let mut r = native(text);
                r["health"] = native_health(text);
                r
            }
        };
        #[cfg(not(feature = "wasm"))]
        let mut r = native(text);
        #[cfg(not(feature = "wasm"))]
        {
            r["health"] = native_health(text);
        }
        r["name"] = json!(name);
        serde_json::to_writer(&mut out, &r).expect("write");
        out.write_all(b"\n").expect("write");
    }
}
