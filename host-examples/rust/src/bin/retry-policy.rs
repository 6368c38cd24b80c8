//! `retry-policy`: plan schedules with the policy artifact (the component,
//! not the native crate), so what it prints is what every dispatcher will
//! do; bundle a document into an artifact and inspect one.
//!
//!   retry-policy plan --window 15m --base 2s --factor 2 --cap 5m --jitter full [--hard-cap 16]
//!   retry-policy plan [--policy FILE]        (JSON or TOML policy document; default: the artifact's embedded one)
//!   retry-policy admit [--policy FILE] --class NAME [--now-ms N]
//!   retry-policy lint FILE [--format json] [--rate ENDPOINT_OR_CLASS=N/s]...
//!   retry-policy simulate --policy FILE --scenario FILE [--seed N] [--out DIR] [--format json]
//!   retry-policy diff OLD NEW [--format json]
//!   retry-policy bundle --policy FILE [--component C] -o OUT.wasm [--allow-lint-errors yes]
//!   retry-policy inspect FILE [--format json]
//!   global: --component PATH   (default: $RETRY_POLICY_ARTIFACT, else the copy built into this binary)

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use policy_tools::commands::{self, Args};
use retry_policy_core::{Backoff, Jitter};
use retry_policy_host::cli::artifact::{bundle, document_json, inspect, inspect_text};
use retry_policy_host::cli::{parse_duration_ms, schedule_table, ComponentSource};
use retry_policy_host::{
    document_classes, ArtifactRef, InMemoryStore, PolicyDocument, PolicyEngine, PolicyInstance, SystemClock,
    ABI_VERSION, WIT_PACKAGE,
};

const USAGE: &str = "usage:
  retry-policy plan --window 15m --base 2s --factor 2 --cap 5m --jitter full [--hard-cap 16]
  retry-policy plan [--policy FILE.{json,toml}]           (default: the artifact's embedded document)
  retry-policy admit [--policy FILE] --class NAME [--now-ms N]
  retry-policy lint FILE [--format json] [--rate ENDPOINT_OR_CLASS=N/s]...   (exit 0 clean, 1 errors, 2 unreadable)
  retry-policy simulate --policy FILE --scenario FILE [--seed N] [--out DIR] [--format json]
  retry-policy diff OLD NEW [--format json]                                   (exit 0 same, 1 some class changes)
  retry-policy bundle --policy FILE [--component C] -o OUT.wasm [--allow-lint-errors yes]   (embed a validated document)
  retry-policy inspect FILE [--format json]                                   (what an artifact is)
  retry-policy --help | --version
options: --component PATH (default $RETRY_POLICY_ARTIFACT, else the artifact built into this binary;
         $RETRY_POLICY_ARTIFACT_SHA256 pins its sha256)";

fn flags(args: &[String]) -> Result<HashMap<String, String>, String> {
    let mut map = HashMap::new();
    let mut it = args.iter();
    while let Some(k) = it.next() {
        let key = match k.as_str() {
            "-o" => "out",
            _ => k.strip_prefix("--").ok_or_else(|| format!("unexpected argument `{k}`"))?,
        };
        let v = it.next().ok_or_else(|| format!("--{key} needs a value"))?;
        if map.insert(key.to_string(), v.clone()).is_some() {
            return Err(format!("--{key} given twice"));
        }
    }
    Ok(map)
}

fn load(component: Option<&String>) -> Result<PolicyEngine, String> {
    let artifact = component.map_or(ArtifactRef::Default, |p| ArtifactRef::Path(Path::new(p)));
    PolicyEngine::load(artifact, None).map_err(|e| e.to_string())
}

/// The document of `--policy`, else the artifact's embedded one.
fn document(
    policy: &mut PolicyInstance,
    engine: &PolicyEngine,
    f: &HashMap<String, String>,
) -> Result<PolicyDocument, String> {
    match f.get("policy") {
        Some(path) => policy.load_document(&document_json(path)?).map_err(|e| format!("{path}: {e}")),
        None => engine.document().cloned().ok_or_else(|| "missing --policy (the artifact embeds no document)".into()),
    }
}

fn plan_cmd(policy: &mut PolicyInstance, engine: &PolicyEngine, f: &HashMap<String, String>) -> Result<(), String> {
    if f.contains_key("policy") || (!f.contains_key("window") && engine.document().is_some()) {
        let doc = document(policy, engine, f)?;
        for (name, p) in document_classes(&doc) {
            let plan = policy.plan(&p.backoff, p.window_ms, p.hard_cap).map_err(|e| e.to_string())?;
            let table =
                schedule_table(policy, &name, &p.backoff, p.window_ms, p.hard_cap, &plan).map_err(|e| e.to_string())?;
            print!("{table}");
            println!();
        }
        return Ok(());
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
    Ok(())
}

fn admit_cmd(policy: &mut PolicyInstance, engine: &PolicyEngine, f: &HashMap<String, String>) -> Result<(), String> {
    let class = f.get("class").ok_or("missing --class")?;
    let now: u64 = match f.get("now-ms") {
        Some(n) => n.parse().map_err(|_| "--now-ms must be an integer")?,
        None => retry_policy_core::Clock::now_ms(&SystemClock),
    };
    let doc = document(policy, engine, f)?;
    let a = policy.admit(&doc, class, now).map_err(|e| e.to_string())?;
    println!("class={} policy_version={} policy_hash={}", a.class, a.policy_version, a.policy_hash);
    println!(
        "first_attempted_at_ms={} deadline_ms={} max_attempts={}",
        a.first_attempted_at_ms, a.deadline_ms, a.schedule.max_attempts
    );
    println!("offsets_ms={:?}", a.schedule.offsets_ms);
    Ok(())
}

fn bundle_cmd(f: &HashMap<String, String>) -> Result<(), String> {
    let policy = f.get("policy").ok_or("missing --policy")?;
    let out = f.get("out").ok_or("missing -o OUT.wasm")?;
    let artifact = f.get("component").map_or(ArtifactRef::Default, |p| ArtifactRef::Path(Path::new(p)));
    let allow = match f.get("allow-lint-errors").map(String::as_str) {
        None | Some("no") => false,
        Some("yes") => true,
        Some(other) => return Err(format!("--allow-lint-errors {other}: yes or no")),
    };
    let (bytes, allowed) = bundle(artifact, policy, allow)?;
    if !allowed.is_empty() {
        eprintln!(
            "warning: bundled with {} lint error(s) (--allow-lint-errors yes):\n{}",
            allowed.len(),
            allowed.join("\n")
        );
    }
    std::fs::write(out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    let engine = PolicyEngine::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let info = engine.info();
    println!(
        "{out}: {} bytes, sha256 {}, document version {}",
        info.size_bytes,
        info.sha256,
        info.document_version.as_deref().unwrap_or("")
    );
    Ok(())
}

fn inspect_cmd(args: &[String]) -> Result<(), String> {
    let (file, json) = match args {
        [file] => (file, false),
        [file, flag, format] | [flag, format, file] if flag == "--format" => match format.as_str() {
            "json" => (file, true),
            "text" => (file, false),
            other => return Err(format!("--format {other}: json or text")),
        },
        _ => return Err(format!("inspect takes one FILE and an optional --format json\n{USAGE}")),
    };
    let v = inspect(file)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
    } else {
        print!("{}", inspect_text(&v));
    }
    Ok(())
}

type ToolCommand = fn(&mut dyn policy_tools::DecisionSource, &Args, &mut dyn std::io::Write) -> Result<u8, String>;

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
    let component = a.flags.iter().position(|(k, _)| k == "component").map(|i| a.flags.remove(i).1);
    let mut source = match load(component.as_ref())
        .and_then(|e| e.instantiate(SystemClock, InMemoryStore::new()).map_err(|e| e.to_string()))
    {
        Ok(p) => ComponentSource(p),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout().lock();
    match run(&mut source, &a, &mut out) {
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
    if args.iter().any(|a| a == "--help" || a == "-h") || cmd == "help" {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if cmd == "--version" || cmd == "-V" {
        println!("retry-policy {} ({WIT_PACKAGE}, abi {ABI_VERSION})", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    let result = match cmd.as_str() {
        "lint" => return tool(commands::lint, &args[1..]),
        "simulate" => return tool(commands::simulate, &args[1..]),
        "diff" => return tool(commands::diff, &args[1..]),
        "inspect" => inspect_cmd(&args[1..]),
        "bundle" | "plan" | "admit" => match flags(&args[1..]) {
            Ok(f) => run(&cmd, &f),
            Err(e) => {
                eprintln!("error: {e}\n{USAGE}");
                return ExitCode::from(2);
            }
        },
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

fn run(cmd: &str, f: &HashMap<String, String>) -> Result<(), String> {
    if cmd == "bundle" {
        return bundle_cmd(f);
    }
    let engine = load(f.get("component"))?;
    let mut policy = engine.instantiate(SystemClock, InMemoryStore::new()).map_err(|e| e.to_string())?;
    match cmd {
        "plan" => plan_cmd(&mut policy, &engine, f),
        _ => admit_cmd(&mut policy, &engine, f),
    }
}
