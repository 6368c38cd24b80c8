//! The conformance runner: every case of every vector file, through a host
//! (`native` = policy-core directly, `wasmtime` = the component).
//!
//! Formats 1 and 2 here; format 3 (`format3-*.json`, "health-vectors 1")
//! in [`health`], compared as the Rust reference does ([`health::same`]).
//! Vectors need only a JSON parser. A case with an unknown `op`, or an input
//! with an unknown or missing field, is a broken vector: it fails, by name.

use std::path::{Path, PathBuf};

use retry_policy_core::codec::{self, Fields};
use retry_policy_core::json::Value;
use retry_policy_core::{self as core_, PolicyError};

use crate::{HostError, PolicyInstance};

#[path = "conformance_engine.rs"]
pub mod engine;
#[path = "conformance_health.rs"]
pub mod health;

/// What a host must answer (format 3's ops: [`health::HealthHost`]);
/// errors are the policy's refusals.
pub trait Host: health::HealthHost {
    fn name(&self) -> &'static str;
    /// The delivery engines this host runs engine traces on.
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_>;
    fn plan(&mut self, b: &core_::Backoff, window_ms: u64, hard_cap: u32) -> Answer<core_::Plan>;
    fn delay(&mut self, b: &core_::Backoff, event_id: &str, retry_index: u32) -> Answer<u64>;
    fn classify_status(&mut self, status: u16) -> Answer<core_::OutcomeClass>;
    fn classify_error(&mut self, kind: &str) -> Answer<core_::OutcomeClass>;
    fn budget(&mut self, b: &core_::Budget, now_ms: u64, c: &core_::BudgetCounts) -> Answer<bool>;
    fn decide(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        now_ms: u64,
        c: Option<&core_::BudgetCounts>,
    ) -> Answer<core_::Decision>;
    fn evaluate(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        now_ms: u64,
    ) -> Answer<core_::Step>;
    fn settle(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        now_ms: u64,
        r: &core_::StoreReply,
    ) -> Answer<core_::Settlement>;
    fn resume(&mut self, p: &core_::Policy, s: &core_::DeliveryState, now_ms: u64) -> Answer<core_::Resumption>;
    fn retry_after(&mut self, header: &str, now_ms: u64) -> Answer<Option<u64>>;
}

/// `Err(Ok(e))`: the policy refused; `Err(Err(msg))`: the host failed.
pub type Answer<T> = Result<T, Result<PolicyError, String>>;

/// policy-core, natively.
pub struct Native;

impl Host for Native {
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_> {
        Box::new(engine::NativeEngines::default())
    }
    fn name(&self) -> &'static str {
        "native"
    }
    fn plan(&mut self, b: &core_::Backoff, w: u64, h: u32) -> Answer<core_::Plan> {
        core_::plan(b, w, h).map_err(Ok)
    }
    fn delay(&mut self, b: &core_::Backoff, id: &str, i: u32) -> Answer<u64> {
        core_::delay(b, id, i).map_err(Ok)
    }
    fn classify_status(&mut self, s: u16) -> Answer<core_::OutcomeClass> {
        core_::classify_status(s).map_err(Ok)
    }
    fn classify_error(&mut self, k: &str) -> Answer<core_::OutcomeClass> {
        Ok(core_::classify_error(k))
    }
    fn budget(&mut self, b: &core_::Budget, n: u64, c: &core_::BudgetCounts) -> Answer<bool> {
        core_::budget_allows(b, n, c).map_err(Ok)
    }
    fn decide(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
        c: Option<&core_::BudgetCounts>,
    ) -> Answer<core_::Decision> {
        core_::decide_with(p, s, o, n, c).map_err(Ok)
    }
    fn evaluate(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
    ) -> Answer<core_::Step> {
        core_::evaluate(p, s, o, n).map_err(Ok)
    }
    fn settle(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
        r: &core_::StoreReply,
    ) -> Answer<core_::Settlement> {
        core_::settle(p, s, o, n, r).map_err(Ok)
    }
    fn resume(&mut self, p: &core_::Policy, s: &core_::DeliveryState, n: u64) -> Answer<core_::Resumption> {
        core_::resume(p, s, n).map_err(Ok)
    }
    fn retry_after(&mut self, h: &str, n: u64) -> Answer<Option<u64>> {
        Ok(core_::parse_retry_after(h, n))
    }
}

fn host_err(e: HostError) -> Result<PolicyError, String> {
    match e {
        HostError::Policy(p) => Ok(p),
        other => Err(other.to_string()),
    }
}

/// The component, in wasmtime.
impl Host for PolicyInstance {
    fn engines(&mut self) -> Box<dyn engine::EngineHost + '_> {
        Box::new(engine::ComponentEngines(self))
    }
    fn name(&self) -> &'static str {
        "wasmtime"
    }
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

/// Decoding a case's input: a semantic refusal (unknown jitter is
/// `invalid_backoff`) is an answer; a shape error is a broken vector.
enum Input<T> {
    Ok(T),
    Refused(PolicyError),
}

fn input<T>(r: Result<T, PolicyError>) -> Result<Input<T>, String> {
    match r {
        Ok(v) => Ok(Input::Ok(v)),
        Err(e) if e.code == core_::ErrorCode::InvalidInput => Err(format!("broken vector: {e}")),
        Err(e) => Ok(Input::Refused(e)),
    }
}

fn answer<T>(r: Answer<T>, enc: impl FnOnce(&T) -> Value) -> Result<Value, String> {
    match r {
        Ok(v) => Ok(enc(&v)),
        Err(Ok(e)) => Ok(Value::Object(vec![("error".into(), e.code.as_str().into())])),
        Err(Err(msg)) => Err(msg),
    }
}

macro_rules! take {
    ($e:expr) => {
        match input($e)? {
            Input::Ok(v) => v,
            Input::Refused(e) => return Ok(Value::Object(vec![("error".into(), e.code.as_str().into())])),
        }
    };
}

/// The actual result of one case, in the vectors' `expect` shape.
fn run_case(host: &mut dyn Host, op: &str, v: &Value) -> Result<Value, String> {
    let class = |c: &core_::OutcomeClass| Value::Object(vec![("outcome".into(), c.as_str().into())]);
    match op {
        "plan" => {
            let f = Fields::new(v, &["backoff", "window_ms", "hard_cap"]).map_err(|e| e.to_string())?;
            let b = take!(f.nested("backoff", codec::backoff));
            let (w, h) = (take!(f.u64("window_ms")), take!(f.u32("hard_cap")));
            answer(host.plan(&b, w, h), codec::plan_to_value)
        }
        "delay" => {
            let f = Fields::new(v, &["backoff", "event_id", "retry_index"]).map_err(|e| e.to_string())?;
            let b = take!(f.nested("backoff", codec::backoff));
            let (id, i) = (take!(f.str("event_id")), take!(f.u32("retry_index")));
            answer(host.delay(&b, id, i), |d| Value::Object(vec![("delay_ms".into(), (*d).into())]))
        }
        "classify_status" => {
            let f = Fields::new(v, &["status"]).map_err(|e| e.to_string())?;
            let s = take!(f.u64("status"));
            match u16::try_from(s) {
                Ok(s) => answer(host.classify_status(s), class),
                Err(_) => Ok(Value::Object(vec![("error".into(), "invalid_status".into())])),
            }
        }
        "classify_error" => {
            let f = Fields::new(v, &["error_kind"]).map_err(|e| e.to_string())?;
            answer(host.classify_error(take!(f.str("error_kind"))), class)
        }
        "budget" => {
            let f = Fields::new(v, &["budget", "now_ms", "current", "previous"]).map_err(|e| e.to_string())?;
            let b = take!(f.nested("budget", codec::budget));
            let n = take!(f.u64("now_ms"));
            let c = core_::BudgetCounts {
                current: take!(f.nested("current", codec::bucket_counts)),
                previous: take!(f.nested("previous", codec::bucket_counts)),
            };
            answer(host.budget(&b, n, &c), |a| Value::Object(vec![("allows_retry".into(), (*a).into())]))
        }
        "decide" => {
            let f = Fields::new(v, &["policy", "state", "outcome", "now_ms", "budget_counts"])
                .map_err(|e| e.to_string())?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let o = take!(f.nested("outcome", codec::outcome));
            let n = take!(f.u64("now_ms"));
            if v.get("budget_counts").is_none() {
                return Err("broken vector: missing field `budget_counts` (null means unreadable)".into());
            }
            let c = match f.opt("budget_counts") {
                Some(_) => Some(take!(f.nested("budget_counts", codec::budget_counts))),
                None => None,
            };
            answer(host.decide(&p, &s, &o, n, c.as_ref()), codec::decision_to_value)
        }
        "evaluate" | "settle" => {
            let settle = op == "settle";
            let keys: &[&str] = if settle {
                &["policy", "state", "outcome", "now_ms", "reply"]
            } else {
                &["policy", "state", "outcome", "now_ms"]
            };
            let f = Fields::new(v, keys).map_err(|e| e.to_string())?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let o = take!(f.nested("outcome", codec::outcome));
            let n = take!(f.u64("now_ms"));
            if settle {
                let r = take!(f.nested("reply", codec::store_reply));
                answer(host.settle(&p, &s, &o, n, &r), codec::settlement_to_value)
            } else {
                answer(host.evaluate(&p, &s, &o, n), codec::step_to_value)
            }
        }
        "resume" => {
            let f = Fields::new(v, &["policy", "state", "now_ms"]).map_err(|e| e.to_string())?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let n = take!(f.u64("now_ms"));
            answer(host.resume(&p, &s, n), codec::resumption_to_value)
        }
        "retry_after" => {
            let f = Fields::new(v, &["header", "now_ms"]).map_err(|e| e.to_string())?;
            let (h, n) = (take!(f.str("header")), take!(f.u64("now_ms")));
            answer(host.retry_after(h, n), |ms| codec::retry_after_to_value(*ms))
        }
        other => Err(format!("unknown op `{other}`")),
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

/// A file's cases: format 1 or 2 (`{format, suite, cases}`), or format 3
/// (`{format: "webhook-retry-policy/health-vectors 1", suite, spec, regenerate, cases}`).
fn file_cases(doc: &Value) -> Result<Vec<Value>, PolicyError> {
    let format3 = doc.get("format").and_then(Value::as_str) == Some(health::FORMAT);
    let keys: &[&str] =
        if format3 { &["format", "suite", "spec", "regenerate", "cases"] } else { &["format", "suite", "cases"] };
    let f = Fields::new(doc, keys)?;
    let shape = |field, message| PolicyError::new(core_::ErrorCode::InvalidInput, field, message);
    if !format3 && !matches!(f.u64("format")?, 1 | 2) {
        return Err(shape("format", "only formats 1, 2 and health-vectors 1 are known"));
    }
    f.str("suite")?;
    match f.req("cases")? {
        Value::Array(items) => Ok(items.clone()),
        _ => Err(shape("cases", "expected an array")),
    }
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
        let cases = match file_cases(&doc) {
            Ok(c) => c,
            Err(e) => {
                fail(&mut report, "<file>", format!("broken vector file: {e}"));
                continue;
            }
        };
        let format3 = doc.get("format").and_then(Value::as_str) == Some(health::FORMAT);
        for (i, case) in cases.iter().enumerate() {
            let name = case.get("name").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| format!("#{i}"));
            let parts = Fields::new(case, &["name", "op", "input", "expect"])
                .and_then(|f| Ok((f.str("name")?, f.str("op")?, f.req("input")?, f.req("expect")?)));
            let (_, op, inp, expect) = match parts {
                Ok(p) => p,
                Err(e) => {
                    fail(&mut report, &name, format!("broken vector: {e}"));
                    continue;
                }
            };
            let result = if format3 { health::run_case(host, op, inp) } else { run_case(host, op, inp) };
            let same = |actual: &Value| if format3 { health::answers(actual, expect) } else { actual == expect };
            match result {
                Ok(actual) if same(&actual) => report.passed += 1,
                Ok(actual) => fail(
                    &mut report,
                    &name,
                    format!(
                        "expected {} got {}",
                        serde_json::to_string(expect).unwrap_or_default(),
                        serde_json::to_string(&actual).unwrap_or_default()
                    ),
                ),
                Err(e) => fail(&mut report, &name, e),
            }
        }
    }
    report
}
