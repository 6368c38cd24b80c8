//! `retry-policy`: plan schedules with the policy component (not the native
//! crate), so what it prints is what every dispatcher will do.
//!
//!   retry-policy plan --window 15m --base 2s --factor 2 --cap 5m --jitter full [--hard-cap 16]
//!   retry-policy plan --policy FILE            (JSON or TOML policy document)
//!   retry-policy admit --policy FILE --class NAME [--now-ms N]
//!   retry-policy lint FILE [--format json] [--rate ENDPOINT_OR_CLASS=N/s]...
//!   retry-policy simulate --policy FILE --scenario FILE [--seed N] [--out DIR] [--format json]
//!   retry-policy diff OLD NEW [--format json]
//!   global: --component PATH   (default: $RETRY_POLICY_COMPONENT or dist/retry_policy.wasm)

use std::collections::HashMap;
use std::process::ExitCode;

use policy_tools::commands::{self, Args};
use retry_policy_core::json::Value;
use retry_policy_core::{Backoff, Jitter};
use retry_policy_host::cli::{parse_duration_ms, schedule_table, ComponentEngine};
use retry_policy_host::{
    default_component_path, document_classes, InMemoryStore, PolicyEngine, PolicyInstance, SystemClock,
};

const USAGE: &str = "usage:
  retry-policy plan --window 15m --base 2s --factor 2 --cap 5m --jitter full [--hard-cap 16]
  retry-policy plan --policy FILE.{json,toml}
  retry-policy admit --policy FILE --class NAME [--now-ms N]
  retry-policy lint FILE [--format json] [--rate ENDPOINT_OR_CLASS=N/s]...   (exit 0 clean, 1 errors, 2 unreadable)
  retry-policy simulate --policy FILE --scenario FILE [--seed N] [--out DIR] [--format json]
  retry-policy diff OLD NEW [--format json]                                   (exit 0 same, 1 some class changes)
options: --component PATH (default $RETRY_POLICY_COMPONENT or dist/retry_policy.wasm)";

fn flags(args: &[String]) -> Result<HashMap<String, String>, String> {
    let mut map = HashMap::new();
    let mut it = args.iter();
    while let Some(k) = it.next() {
        let key = k.strip_prefix("--").ok_or_else(|| format!("unexpected argument `{k}`"))?;
        let v = it.next().ok_or_else(|| format!("--{key} needs a value"))?;
        map.insert(key.to_string(), v.clone());
    }
    Ok(map)
}

/// Read a policy document and hand it to the component as JSON text. TOML
/// is only re-encoded here; all checking happens in the component.
fn document_json(path: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    if path.ends_with(".toml") {
        let v: Value = toml::from_str(&text).map_err(|e| format!("{path}: not valid TOML: {e}"))?;
        serde_json::to_string(&v).map_err(|e| e.to_string())
    } else {
        Ok(text)
    }
}

fn plan_cmd(policy: &mut PolicyInstance, f: &HashMap<String, String>) -> Result<bool, String> {
    let mut hard_capped = false;
    if let Some(path) = f.get("policy") {
        let doc = policy.load_document(&document_json(path)?).map_err(|e| format!("{path}: {e}"))?;
        for (name, p) in document_classes(&doc) {
            let plan = policy.plan(&p.backoff, p.window_ms, p.hard_cap).map_err(|e| e.to_string())?;
            hard_capped |= plan.limited_by == retry_policy_core::LimitedBy::HardCap;
            let table =
                schedule_table(policy, &name, &p.backoff, p.window_ms, p.hard_cap, &plan).map_err(|e| e.to_string())?;
            print!("{table}");
            println!();
        }
        return Ok(hard_capped);
    }
    let get = |k: &str| f.get(k).ok_or_else(|| format!("missing --{k}\n{USAGE}"));
    let backoff = Backoff {
        base_ms: parse_duration_ms(get("base")?)?,
        factor: get("factor")?.parse().map_err(|_| "--factor must be a number".to_string())?,
        cap_ms: parse_duration_ms(get("cap")?)?,
        jitter: Jitter::parse(f.get("jitter").map_or("full", String::as_str)).map_err(|e| e.to_string())?,
    };
    let window = parse_duration_ms(get("window")?)?;
    let hard_cap: u32 = f.get("hard-cap").map_or(Ok(16), |h| h.parse().map_err(|_| "--hard-cap must be an integer"))?;
    let plan = policy.plan(&backoff, window, hard_cap).map_err(|e| e.to_string())?;
    print!("{}", schedule_table(policy, "plan", &backoff, window, hard_cap, &plan).map_err(|e| e.to_string())?);
    Ok(plan.limited_by == retry_policy_core::LimitedBy::HardCap)
}

fn admit_cmd(policy: &mut PolicyInstance, f: &HashMap<String, String>) -> Result<(), String> {
    let path = f.get("policy").ok_or("missing --policy")?;
    let class = f.get("class").ok_or("missing --class")?;
    let now: u64 = match f.get("now-ms") {
        Some(n) => n.parse().map_err(|_| "--now-ms must be an integer")?,
        None => retry_policy_core::Clock::now_ms(&SystemClock),
    };
    let doc = policy.load_document(&document_json(path)?).map_err(|e| format!("{path}: {e}"))?;
    let a = policy.admit(&doc, class, now).map_err(|e| e.to_string())?;
    println!("class={} policy_version={} policy_hash={}", a.class, a.policy_version, a.policy_hash);
    println!(
        "first_attempted_at_ms={} deadline_ms={} max_attempts={}",
        a.first_attempted_at_ms, a.deadline_ms, a.schedule.max_attempts
    );
    println!("offsets_ms={:?}", a.schedule.offsets_ms);
    Ok(())
}

type ToolCommand = fn(&mut dyn policy_tools::PolicyEngine, &Args, &mut dyn std::io::Write) -> Result<u8, String>;

/// `lint`, `simulate`, `diff`: the policy tools on the component. Usage
/// errors exit 2.
fn tool(run: ToolCommand, args: &[String]) -> ExitCode {
    let mut a = match Args::parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let component = match a.flags.iter().position(|(k, _)| k == "component") {
        Some(i) => a.flags.remove(i).1.into(),
        None => default_component_path(),
    };
    let mut engine =
        match PolicyEngine::from_file(&component).and_then(|e| e.instantiate(SystemClock, InMemoryStore::new())) {
            Ok(p) => ComponentEngine(p),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
    let mut out = std::io::stdout().lock();
    match run(&mut engine, &a, &mut out) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first().cloned() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match cmd.as_str() {
        "lint" => return tool(commands::lint, &args[1..]),
        "simulate" => return tool(commands::simulate, &args[1..]),
        "diff" => return tool(commands::diff, &args[1..]),
        _ => {}
    }
    let mut f = match flags(&args[1..]) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let component = f.remove("component").map(Into::into).unwrap_or_else(default_component_path);
    let mut policy =
        match PolicyEngine::from_file(&component).and_then(|e| e.instantiate(SystemClock, InMemoryStore::new())) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
    let result = match cmd.as_str() {
        "plan" => plan_cmd(&mut policy, &f).map(|_| ()),
        "admit" => admit_cmd(&mut policy, &f),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
