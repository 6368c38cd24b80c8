//! The conformance runner: every case of every vector file, through a host
//! (`native` = policy-core directly, `wasmtime` = the component).
//!
//! Decoding, encoding and comparing live once, in policy-core's
//! `vectors` module (formats 1-3); this file binds the component's
//! functions to its `Host` traits, and runs files (and the engine traces of
//! [`engine`]). The ops whose function ABI 1.0 no longer exports
//! (`vectors::exported`) run inside the component: `vector-case` with the
//! file's `format` value and the whole case as JSON text. A case with an
//! unknown `op`, or an input with an unknown or missing field, is a broken
//! vector: it fails, by name.

use std::path::{Path, PathBuf};

use retry_policy_core::json::Value;
use retry_policy_core::vectors::{self, Answer, DocClass, Kind};
use retry_policy_core::{self as core_, PolicyError};

pub use retry_policy_core::vectors::Native;

use crate::{HostError, PolicyInstance};

#[path = "conformance_engine.rs"]
pub mod engine;

/// A host the runner can name and open engines on.
pub trait Host: vectors::Host {
    fn name(&self) -> &'static str;
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_>;
    /// One case of an op the host does not bind (`vectors::exported` is
    /// false), judged by the artifact's `vector-case`: `format` is the
    /// file's `format` value and `case` the case, both as JSON text.
    fn vector_case(&mut self, format: &str, case: &str) -> Result<(), String>;
}

impl Host for Native {
    fn name(&self) -> &'static str {
        "native"
    }
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_> {
        Box::new(engine::NativeEngines::default())
    }
    /// What `vector-case` runs inside the artifact, natively.
    fn vector_case(&mut self, format: &str, case: &str) -> Result<(), String> {
        vectors::check_case_text(format, case)
    }
}

impl Host for PolicyInstance {
    fn name(&self) -> &'static str {
        "wasmtime"
    }
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_> {
        Box::new(engine::ComponentEngines(self))
    }
    fn vector_case(&mut self, format: &str, case: &str) -> Result<(), String> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_vector_case(s, format, case))
            .map_err(|e| e.to_string())?
    }
}

fn host_err(e: HostError) -> Result<PolicyError, String> {
    match e {
        HostError::Policy(p) => Ok(p),
        other => Err(other.to_string()),
    }
}

/// The component, in wasmtime: the ops ABI 1.0 still exports (the others
/// keep the trait's "not bound" bodies; [`run`] sends them to `vector-case`).
impl vectors::Host for PolicyInstance {
    fn plan(&mut self, b: &core_::Backoff, w: u64, h: u32) -> Answer<core_::Plan> {
        PolicyInstance::plan(self, b, w, h).map_err(host_err)
    }
    fn classify_status(&mut self, s: u16) -> Answer<core_::OutcomeClass> {
        PolicyInstance::classify_status(self, s).map_err(host_err)
    }
    fn classify_error(&mut self, k: &str) -> Answer<core_::OutcomeClass> {
        PolicyInstance::classify_error(self, k).map_err(host_err)
    }
    fn evaluate(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
    ) -> Answer<core_::Step> {
        PolicyInstance::evaluate(self, p, s, o, n).map_err(host_err)
    }
    fn settle(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
        r: &core_::StoreReply,
    ) -> Answer<core_::Settlement> {
        PolicyInstance::settle(self, p, s, o, n, r).map_err(host_err)
    }
    fn retry_after(&mut self, h: &str, n: u64) -> Answer<Option<u64>> {
        self.parse_retry_after(h, n).map_err(host_err)
    }
}

/// Format 3's `parse_document`: `load-health-document`.
impl vectors::HealthHost for PolicyInstance {
    fn health_document(&mut self, doc: &Value) -> Answer<Vec<DocClass>> {
        let json = serde_json::to_string(doc).map_err(|e| Err(e.to_string()))?;
        let doc = self.load_health_document(&json).map_err(host_err)?;
        let class = |c: crate::HealthClass| DocClass {
            name: c.name,
            health: c.health,
            policy_hash: c.policy_hash,
            hash_words: c.hash_words,
        };
        Ok(doc.classes.into_iter().map(class).collect())
    }
}

/// One case: through the host's glue when ABI 1.0 exports its op, else
/// whole through `vector-case` (the numbers as parsed: `json::Value` keeps
/// every u64 and f64 exactly, so the text carries the file's values).
fn check_case(host: &mut dyn Host, kind: Kind, format: &Value, case: &Value) -> Result<(), String> {
    let op = case.get("op").and_then(Value::as_str).unwrap_or_default();
    if vectors::exported(kind, op) {
        return vectors::check_case(host, kind, case);
    }
    let text = |v: &Value| serde_json::to_string(v).map_err(|e| format!("cannot write the case as JSON: {e}"));
    host.vector_case(&text(format)?, &text(case)?)
}

/// Totals of a run, and one line per failing case.
#[derive(Default, Debug)]
pub struct Report {
    pub passed: usize,
    pub failed: usize,
    pub failures: Vec<String>,
}

/// Vector files of a directory (or a single file), sorted.
pub fn vector_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    if dir.is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}

/// Every case of an engine trace file (docs/engine.md section 14).
fn run_traces(host: &mut dyn Host, doc: &Value, file: &str, report: &mut Report) {
    let cases = match serde_json::to_value(doc).map_err(|e| e.to_string()).and_then(|d| engine::file_cases(&d)) {
        Ok(c) => c,
        Err(e) => {
            report.failed += 1;
            report.failures.push(format!("{file}: <file>: broken trace file: {e}"));
            return;
        }
    };
    let mut engines = host.engines();
    for (i, case) in cases.iter().enumerate() {
        let name = case.get("name").and_then(serde_json::Value::as_str).map_or_else(|| format!("#{i}"), str::to_owned);
        match engine::run_case(engines.as_mut(), case) {
            Ok(()) => report.passed += 1,
            Err(e) => {
                report.failed += 1;
                report.failures.push(format!("{file}: {name}: {e}"));
            }
        }
    }
}

/// Run every case of every file through `host`.
pub fn run(host: &mut dyn Host, files: &[PathBuf]) -> Report {
    let mut report = Report::default();
    for path in files {
        let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let fail = |report: &mut Report, case: &str, why: String| {
            report.failed += 1;
            report.failures.push(format!("{file}: {case}: {why}"));
        };
        let doc: Value = match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| format!("not JSON: {e}")))
        {
            Ok(d) => d,
            Err(e) => {
                fail(&mut report, "<file>", e);
                continue;
            }
        };
        if doc.get("format").and_then(Value::as_str) == Some(engine::FORMAT) {
            run_traces(host, &doc, &file, &mut report);
            continue;
        }
        let (kind, cases) = match vectors::file_cases(&doc) {
            Ok(c) => c,
            Err(e) => {
                fail(&mut report, "<file>", format!("broken vector file: {e}"));
                continue;
            }
        };
        let format = doc.get("format").cloned().unwrap_or(Value::Null);
        for (i, case) in cases.iter().enumerate() {
            match check_case(host, kind, &format, case) {
                Ok(()) => report.passed += 1,
                Err(e) => fail(&mut report, &vectors::case_name(case, i), e),
            }
        }
    }
    report
}

/// The artifact's `replica-args` (docs/replica.md, "One judge of the
/// command line"): the request's JSON text to the answer's, or the error
/// line; for `replica_args::vectors` (the Rust dispatcher itself judges
/// its command line with policy-core, natively).
pub fn replica_args(inst: &mut PolicyInstance, request: &str) -> Result<String, String> {
    inst.call(|b, s| b.webhook_retry_policy_policy().call_replica_args(s, request)).map_err(|e| e.to_string())?
}
