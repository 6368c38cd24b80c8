//! Native policy-core vs the component in wasmtime, in one process, on the
//! same structured cases as the `ops` fuzz target (`retry-policy-fuzz-ops`):
//! every operation ABI 1.0 exports must give the same value, or the same
//! error code and field, and the component must never trap. Policy
//! documents go through `load_document` (component) vs
//! `PolicyDocument::from_json` (native). Each case is a `HealthCase`: its
//! `Case` runs the exported format-2 operations, and every 16th case's
//! document also goes through `load_health_document` with the case's
//! section (`wasmdiff_health.rs`). The operations ABI 1.0 no longer exports
//! (`delay`, `budget-allows`, `decide-with`, `resume`, the compiled policy
//! and format 3's pieces) are not compared here: `tests/differential/run`
//! runs their generated cases through every host's `vector-case`.
//!
//!   wasmdiff [--cases N] [--seed S] [--corpus DIR ...] [--docs DIR ...]
//!
//! Cases come from a seeded byte stream (SplitMix64), so a run is
//! reproducible; `--corpus` replays the `ops` fuzzer's corpus files as cases
//! and `--docs` the `document_json` corpus as documents. Prints one line per
//! disagreement and a summary; exits 1 on any disagreement or trap.
//!
//! (Why not a libFuzzer target: linking wasmtime + cranelift into a
//! sanitizer-instrumented nightly build is a second full wasmtime compile on
//! a shared 2-core machine; this runner reuses the product's release build
//! and runs the same generator, uninstrumented, ~10x faster per case.)

use std::time::Instant;

use arbitrary::{Arbitrary, Unstructured};
use retry_policy_core::document::PolicyDocument;
use retry_policy_fuzz_ops::{native, refusal, Ans, Case, HealthCase, Refusal};
use retry_policy_host::{FakeClock, HostError, InMemoryStore, PolicyEngine, PolicyInstance};

#[path = "../wasmdiff_health.rs"]
mod health;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n.div_ceil(8)).flat_map(|_| self.next().to_le_bytes()).take(n).collect()
    }
}

#[derive(Default)]
struct Tally {
    cases: u64,
    docs: u64,
    disagreements: u64,
    traps: u64,
}

/// The answers of the operations ABI 1.0 exports (`Answers`' fields of them).
#[derive(Debug, PartialEq)]
struct Exported {
    plan: Ans<retry_policy_core::Plan>,
    classify_status: Ans<retry_policy_core::OutcomeClass>,
    classify_error: Ans<retry_policy_core::OutcomeClass>,
    evaluate: Ans<retry_policy_core::Step>,
    settle: Ans<retry_policy_core::Settlement>,
    retry_after: Ans<Option<u64>>,
    store_key: Ans<String>,
    store_apply: Ans<(retry_policy_core::Reservation, retry_policy_core::HeldBuckets)>,
}

fn native_exported(c: &Case) -> Exported {
    let a = native(c);
    Exported {
        plan: a.plan,
        classify_status: a.classify_status,
        classify_error: a.classify_error,
        evaluate: a.evaluate,
        settle: a.settle,
        retry_after: a.retry_after,
        store_key: a.store_key,
        store_apply: a.store_apply,
    }
}

fn host<T>(r: Result<T, HostError>, traps: &mut u64, what: &str) -> Result<T, Refusal> {
    match r {
        Ok(v) => Ok(v),
        Err(HostError::Policy(e)) => Err(refusal(e)),
        Err(other) => {
            *traps += 1;
            eprintln!("TRAP in {what}: {other}");
            Err(Refusal { code: "trap", field: other.to_string() })
        }
    }
}

fn component(inst: &mut PolicyInstance, c: &Case, traps: &mut u64) -> Exported {
    let p = &c.policy;
    Exported {
        plan: host(inst.plan(&p.backoff, p.window_ms, p.hard_cap), traps, "plan"),
        classify_status: host(inst.classify_status(c.status()), traps, "classify_status"),
        classify_error: host(inst.classify_error(c.error_kind()), traps, "classify_error"),
        evaluate: host(inst.evaluate(p, &c.state, &c.outcome, c.now_ms), traps, "evaluate"),
        settle: host(inst.settle(p, &c.state, &c.outcome, c.now_ms, &c.reply), traps, "settle"),
        retry_after: host(inst.parse_retry_after(&c.header, c.now_ms), traps, "retry_after"),
        store_key: host(inst.store_key(&c.request()), traps, "store_key"),
        store_apply: if p.budget.validate().is_ok() {
            host(inst.store_apply(&c.request(), &p.budget, c.now_ms, &c.held), traps, "store_apply")
        } else {
            Err(Refusal { code: "skipped", field: String::new() })
        },
    }
}

fn compare(inst: &mut PolicyInstance, c: &Case, t: &mut Tally, label: &str) {
    let a = native_exported(c);
    let b = component(inst, c, &mut t.traps);
    t.cases += 1;
    if a != b {
        t.disagreements += 1;
        let pairs: [(&str, String, String); 8] = [
            ("plan", format!("{:?}", a.plan), format!("{:?}", b.plan)),
            ("classify_status", format!("{:?}", a.classify_status), format!("{:?}", b.classify_status)),
            ("classify_error", format!("{:?}", a.classify_error), format!("{:?}", b.classify_error)),
            ("evaluate", format!("{:?}", a.evaluate), format!("{:?}", b.evaluate)),
            ("settle", format!("{:?}", a.settle), format!("{:?}", b.settle)),
            ("retry_after", format!("{:?}", a.retry_after), format!("{:?}", b.retry_after)),
            ("store_key", format!("{:?}", a.store_key), format!("{:?}", b.store_key)),
            ("store_apply", format!("{:?}", a.store_apply), format!("{:?}", b.store_apply)),
        ];
        for (op, x, y) in pairs.iter().filter(|(_, x, y)| x != y) {
            println!("DISAGREE {label} {op}: native {x} vs wasmtime {y}\n  case {c:?}");
        }
    }
}

fn compare_doc(inst: &mut PolicyInstance, text: &str, t: &mut Tally, label: &str) {
    t.docs += 1;
    let a = PolicyDocument::from_json(text).map(|d| (d.version, d.classes)).map_err(refusal);
    let b = host(inst.load_document(text), &mut t.traps, "load_document")
        .map(|d| (d.version.clone(), retry_policy_host::document_classes(&d)));
    if a != b {
        t.disagreements += 1;
        println!("DISAGREE {label} load_document: native {a:?} vs wasmtime {b:?}\n  text {text:?}");
    }
}

/// A document around the case's policy, with the values spelled in several ways.
fn document(c: &Case, r: &mut Rng) -> String {
    let p = &c.policy;
    let f = |x: f64, r: &mut Rng| -> String {
        if !x.is_finite() {
            return "1e999".into();
        }
        match r.next() % 4 {
            0 => format!("{x:?}"),
            1 => format!("{x:e}"),
            2 => format!("{x:.17e}"),
            _ => format!("{x:.16}"),
        }
    };
    let mut s = format!(
        "{{\"version\": \"v\", \"classes\": {{\"{}\": {{\"window_ms\": {}, \"hard_cap\": {}, \"backoff\": {{\"base_ms\": {}, \"factor\": {}, \"cap_ms\": {}, \"jitter\": \"{}\"}}, \"budget\": {{\"ratio\": {}, \"window_ms\": {}, \"min_sample\": {}, \"sliding\": {}}}}}",
        c.state.event_id.replace(['"', '\\'], "").chars().filter(|ch| !ch.is_control()).collect::<String>(),
        p.window_ms,
        p.hard_cap,
        p.backoff.base_ms,
        f(p.backoff.factor, r),
        p.backoff.cap_ms,
        p.backoff.jitter.as_str(),
        f(p.budget.ratio, r),
        p.budget.window_ms,
        p.budget.min_sample,
        p.budget.sliding
    );
    if r.next() % 8 == 0 {
        s.push_str(", \"max_attempts\": 3");
    }
    s.push_str("}}");
    s
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut cases, mut seed) = (100_000u64, 1u64);
    let (mut corpora, mut docs) = (Vec::new(), Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cases" => cases = args.next().and_then(|v| v.parse().ok()).expect("--cases N"),
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).expect("--seed S"),
            "--corpus" => corpora.push(args.next().expect("--corpus DIR")),
            "--docs" => docs.push(args.next().expect("--docs DIR")),
            other => panic!("unknown argument {other}"),
        }
    }
    let engine = PolicyEngine::load_default().expect("load the artifact ($RETRY_POLICY_ARTIFACT or the embedded copy)");
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).expect("instantiate");
    let mut t = Tally::default();
    let start = Instant::now();
    for dir in &corpora {
        for e in std::fs::read_dir(dir).expect("read --corpus").flatten() {
            let data = std::fs::read(e.path()).unwrap_or_default();
            if let Ok(h) = HealthCase::arbitrary_take_rest(Unstructured::new(&data)) {
                let label = format!("corpus:{}", e.path().display());
                compare(&mut inst, &h.case, &mut t, &label);
            }
        }
    }
    for dir in &docs {
        for e in std::fs::read_dir(dir).expect("read --docs").flatten() {
            if let Ok(text) = std::fs::read_to_string(e.path()) {
                compare_doc(&mut inst, &text, &mut t, &format!("docs:{}", e.path().display()));
            }
        }
    }
    let mut rng = Rng(seed);
    for i in 0..cases {
        let len = 64 + (rng.next() % 960) as usize;
        let data = rng.bytes(len);
        let Ok(h) = HealthCase::arbitrary(&mut Unstructured::new(&data)) else { continue };
        compare(&mut inst, &h.case, &mut t, &format!("seed {seed} case {i}"));
        if i % 16 == 0 {
            let text = document(&h.case, &mut rng);
            compare_doc(&mut inst, &text, &mut t, &format!("seed {seed} doc {i}"));
            health::compare_doc(&mut inst, &text, &h, &mut t, &format!("seed {seed} health doc {i}"));
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "wasmdiff: {} cases ({} calls each) and {} documents in {secs:.1} s: {} disagreements, {} traps",
        t.cases, 8, t.docs, t.disagreements, t.traps
    );
    if t.disagreements + t.traps > 0 {
        std::process::exit(1);
    }
}
