//! The conformance runner: every case of every vector file, through a host
//! (`native` = policy-core directly, `wasmtime` = the component).
//!
//! Decoding, encoding and comparing live once, in policy-core's
//! `vectors` module (formats 1-3); this file binds the component's
//! functions to its `Host` traits, and runs files (and the engine traces of
//! [`engine`]). A case with an unknown `op`, or an input with an unknown or
//! missing field, is a broken vector: it fails, by name.

use std::path::{Path, PathBuf};

use retry_policy_core::json::Value;
use retry_policy_core::vectors::{self, Answer};
use retry_policy_core::{self as core_, PolicyError};

pub use retry_policy_core::vectors::Native;

use crate::{HostError, PolicyInstance};

#[path = "conformance_engine.rs"]
pub mod engine;
#[path = "conformance_health_hosts.rs"]
mod health_hosts;

/// A host the runner can name and open engines on.
pub trait Host: vectors::Host {
    fn name(&self) -> &'static str;
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_>;
}

impl Host for Native {
    fn name(&self) -> &'static str {
        "native"
    }
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_> {
        Box::new(engine::NativeEngines::default())
    }
}

impl Host for PolicyInstance {
    fn name(&self) -> &'static str {
        "wasmtime"
    }
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_> {
        Box::new(engine::ComponentEngines(self))
    }
}

fn host_err(e: HostError) -> Result<PolicyError, String> {
    match e {
        HostError::Policy(p) => Ok(p),
        other => Err(other.to_string()),
    }
}

/// The component, in wasmtime.
impl vectors::Host for PolicyInstance {
    fn plan(&mut self, b: &core_::Backoff, w: u64, h: u32) -> Answer<core_::Plan> {
        PolicyInstance::plan(self, b, w, h).map_err(host_err)
    }
    fn delay(&mut self, b: &core_::Backoff, id: &str, i: u32) -> Answer<u64> {
        PolicyInstance::delay(self, b, id, i).map_err(host_err)
    }
    fn classify_status(&mut self, s: u16) -> Answer<core_::OutcomeClass> {
        PolicyInstance::classify_status(self, s).map_err(host_err)
    }
    fn classify_error(&mut self, k: &str) -> Answer<core_::OutcomeClass> {
        PolicyInstance::classify_error(self, k).map_err(host_err)
    }
    fn budget(&mut self, b: &core_::Budget, n: u64, c: &core_::BudgetCounts) -> Answer<bool> {
        self.budget_allows(b, n, c).map_err(host_err)
    }
    fn decide(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
        c: Option<&core_::BudgetCounts>,
    ) -> Answer<core_::Decision> {
        self.decide_with(p, s, o, n, c).map_err(host_err)
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
    fn resume(&mut self, p: &core_::Policy, s: &core_::DeliveryState, n: u64) -> Answer<core_::Resumption> {
        PolicyInstance::resume(self, p, s, n).map_err(host_err)
    }
    fn retry_after(&mut self, h: &str, n: u64) -> Answer<Option<u64>> {
        self.parse_retry_after(h, n).map_err(host_err)
    }
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
        for (i, case) in cases.iter().enumerate() {
            match vectors::check_case(host, kind, case) {
                Ok(()) => report.passed += 1,
                Err(e) => fail(&mut report, &vectors::case_name(case, i), e),
            }
        }
    }
    report
}
