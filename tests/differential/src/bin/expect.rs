//! The expectation writer: reads generated cases, one JSON object a line
//! (`{"name", "op", "input"}`), computes each case's `expect` natively with
//! policy-core (through its strict codec, exactly as the conformance
//! runners decode), and writes vector files of at most `--chunk` cases into
//! `--out`. The input's text is copied byte for byte, so every host's JSON
//! parser sees the generator's spelling of each number (`-0`, `1e0`,
//! 17 significant digits, ...).
//!
//!   expect --out DIR [--chunk 2000] [--prefix diff] < cases.jsonl
//!
//! A case the codec refuses as `invalid_input` is a generator bug (the
//! runners would call it a broken vector): the writer stops with its name.
//! Format-3 cases (`"format": 3` in the line) go to their own files,
//! `PREFIX-format3-NNNNN.json`, under the health-vectors header.

use std::io::{BufRead, Write};

#[path = "../health3.rs"]
mod health3;

use retry_policy_core::codec::{self, Fields};
use retry_policy_core::json::Value;
use retry_policy_core::{self as core_, ErrorCode, PolicyError};
use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Line<'a> {
    /// 2 (absent) or 3: which vector files the case goes to.
    #[serde(default)]
    format: Option<u32>,
    name: String,
    op: String,
    #[serde(borrow)]
    input: &'a RawValue,
}

fn error(code: ErrorCode) -> Value {
    Value::Object(vec![("error".into(), code.as_str().into())])
}

/// `Ok(Err(v))`: a refusal to report as the expectation.
fn take<T>(r: Result<T, PolicyError>) -> Result<Result<T, Value>, String> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(e) if e.code == ErrorCode::InvalidInput => Err(format!("generator produced a broken vector: {e}")),
        Err(e) => Ok(Err(error(e.code))),
    }
}

macro_rules! take {
    ($e:expr) => {
        match take($e)? {
            Ok(v) => v,
            Err(refusal) => return Ok(refusal),
        }
    };
}

fn answer<T>(r: Result<T, PolicyError>, enc: impl FnOnce(&T) -> Value) -> Value {
    match r {
        Ok(v) => enc(&v),
        Err(e) => error(e.code),
    }
}

fn shape(e: PolicyError) -> String {
    format!("generator produced a broken vector: {e}")
}

fn expect(op: &str, v: &Value) -> Result<Value, String> {
    let class = |c: &core_::OutcomeClass| Value::Object(vec![("outcome".into(), c.as_str().into())]);
    Ok(match op {
        "plan" => {
            let f = Fields::new(v, &["backoff", "window_ms", "hard_cap"]).map_err(shape)?;
            let b = take!(f.nested("backoff", codec::backoff));
            let (w, h) = (take!(f.u64("window_ms")), take!(f.u32("hard_cap")));
            answer(core_::plan(&b, w, h), codec::plan_to_value)
        }
        "delay" => {
            let f = Fields::new(v, &["backoff", "event_id", "retry_index"]).map_err(shape)?;
            let b = take!(f.nested("backoff", codec::backoff));
            let (id, i) = (take!(f.str("event_id")), take!(f.u32("retry_index")));
            answer(core_::delay(&b, id, i), |d| Value::Object(vec![("delay_ms".into(), (*d).into())]))
        }
        "classify_status" => {
            let f = Fields::new(v, &["status"]).map_err(shape)?;
            let s = take!(f.u64("status"));
            match u16::try_from(s) {
                Ok(s) => answer(core_::classify_status(s), class),
                Err(_) => error(ErrorCode::InvalidStatus),
            }
        }
        "classify_error" => {
            let f = Fields::new(v, &["error_kind"]).map_err(shape)?;
            class(&core_::classify_error(take!(f.str("error_kind"))))
        }
        "budget" => {
            let f = Fields::new(v, &["budget", "now_ms", "current", "previous"]).map_err(shape)?;
            let b = take!(f.nested("budget", codec::budget));
            let n = take!(f.u64("now_ms"));
            let c = core_::BudgetCounts {
                current: take!(f.nested("current", codec::bucket_counts)),
                previous: take!(f.nested("previous", codec::bucket_counts)),
            };
            answer(core_::budget_allows(&b, n, &c), |a| Value::Object(vec![("allows_retry".into(), (*a).into())]))
        }
        "decide" => {
            let f = Fields::new(v, &["policy", "state", "outcome", "now_ms", "budget_counts"]).map_err(shape)?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let o = take!(f.nested("outcome", codec::outcome));
            let n = take!(f.u64("now_ms"));
            if v.get("budget_counts").is_none() {
                return Err("generator produced a broken vector: no budget_counts".into());
            }
            let c = match f.opt("budget_counts") {
                Some(_) => Some(take!(f.nested("budget_counts", codec::budget_counts))),
                None => None,
            };
            answer(core_::decide_with(&p, &s, &o, n, c.as_ref()), codec::decision_to_value)
        }
        "evaluate" | "settle" => {
            let settle = op == "settle";
            let keys: &[&str] = if settle {
                &["policy", "state", "outcome", "now_ms", "reply"]
            } else {
                &["policy", "state", "outcome", "now_ms"]
            };
            let f = Fields::new(v, keys).map_err(shape)?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let o = take!(f.nested("outcome", codec::outcome));
            let n = take!(f.u64("now_ms"));
            if settle {
                let r = take!(f.nested("reply", codec::store_reply));
                answer(core_::settle(&p, &s, &o, n, &r), codec::settlement_to_value)
            } else {
                answer(core_::evaluate(&p, &s, &o, n), codec::step_to_value)
            }
        }
        "resume" => {
            let f = Fields::new(v, &["policy", "state", "now_ms"]).map_err(shape)?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let n = take!(f.u64("now_ms"));
            answer(core_::resume(&p, &s, n), codec::resumption_to_value)
        }
        "retry_after" => {
            let f = Fields::new(v, &["header", "now_ms"]).map_err(shape)?;
            let (h, n) = (take!(f.str("header")), take!(f.u64("now_ms")));
            codec::retry_after_to_value(core_::parse_retry_after(h, n))
        }
        other => return Err(format!("unknown op `{other}`")),
    })
}

/// Vector files of one format: `{prefix}{tag}-NNNNN.json`, at most `chunk` cases each.
struct Files {
    out: std::path::PathBuf,
    stem: String,
    header: fn(&str) -> String,
    chunk: usize,
    buf: String,
    file_no: usize,
    in_file: usize,
}

fn format2_header(suite: &str) -> String {
    format!("{{\"format\": 2, \"suite\": \"{suite}\", \"cases\": [\n")
}

fn format3_header(suite: &str) -> String {
    format!(
        "{{\"format\": \"webhook-retry-policy/health-vectors 1\", \"suite\": \"{suite}\", \"spec\": \"docs/health.md\", \
         \"regenerate\": \"tests/differential/gen.py (see tests/differential/run)\", \"cases\": [\n"
    )
}

impl Files {
    fn suite(&self) -> String {
        format!("{}-{:05}", self.stem, self.file_no)
    }

    fn push(&mut self, case: &str) {
        if self.in_file == 0 {
            self.buf.push_str(&(self.header)(&self.suite()));
        } else {
            self.buf.push_str(",\n");
        }
        self.buf.push_str(case);
        self.in_file += 1;
        if self.in_file == self.chunk {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.in_file == 0 {
            return;
        }
        self.buf.push_str("\n]}\n");
        let path = self.out.join(format!("{}.json", self.suite()));
        std::fs::File::create(&path).and_then(|mut f| f.write_all(self.buf.as_bytes())).expect("write a vector file");
        self.buf.clear();
        self.file_no += 1;
        self.in_file = 0;
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut out, mut chunk, mut prefix) = (None, 2000usize, String::from("diff"));
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = args.next(),
            "--chunk" => chunk = args.next().and_then(|c| c.parse().ok()).unwrap_or(2000).max(1),
            "--prefix" => prefix = args.next().unwrap_or(prefix),
            other => {
                eprintln!("expect: unknown argument `{other}`");
                std::process::exit(2);
            }
        }
    }
    let out = std::path::PathBuf::from(out.unwrap_or_else(|| {
        eprintln!("usage: expect --out DIR [--chunk N] [--prefix P] < cases.jsonl");
        std::process::exit(2)
    }));
    std::fs::create_dir_all(&out).expect("create --out");
    let files = |stem: String, header: fn(&str) -> String| Files {
        out: out.clone(),
        stem,
        header,
        chunk,
        buf: String::new(),
        file_no: 0,
        in_file: 0,
    };
    let mut f2 = files(prefix.clone(), format2_header);
    // The reference runner wants `suite` = the file's name; hosts tell the formats apart by `format`.
    let mut f3 = files(format!("{prefix}-format3"), format3_header);
    let stdin = std::io::stdin().lock();
    let mut total = 0usize;
    for (i, line) in stdin.lines().enumerate() {
        let line = line.expect("read stdin");
        if line.trim().is_empty() {
            continue;
        }
        let case: Line = serde_json::from_str(&line).unwrap_or_else(|e| panic!("line {}: not a case: {e}", i + 1));
        let input: Value = serde_json::from_str(case.input.get())
            .unwrap_or_else(|e| panic!("{}: input is not JSON for serde_json: {e}", case.name));
        let format3 = case.format == Some(3);
        let expect = if format3 { health3::expect(&case.op, &input) } else { expect(&case.op, &input) };
        let expect = expect.unwrap_or_else(|e| {
            eprintln!("expect: case `{}`: {e}", case.name);
            std::process::exit(1)
        });
        let text = format!(
            "{{\"name\": {}, \"op\": {}, \"input\": {}, \"expect\": {}}}",
            serde_json::to_string(&case.name).unwrap(),
            serde_json::to_string(&case.op).unwrap(),
            case.input.get(),
            serde_json::to_string(&expect).unwrap()
        );
        if format3 {
            f3.push(&text);
        } else {
            f2.push(&text);
        }
        total += 1;
    }
    f2.flush();
    f3.flush();
    eprintln!("expect: {total} cases in {} files", f2.file_no + f3.file_no);
}
