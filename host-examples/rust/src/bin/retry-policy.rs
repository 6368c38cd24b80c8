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
use retry_policy_host::cli::args::{tool_args, Command};
use retry_policy_host::cli::artifact::{bundle, document_json, inspect, inspect_text};
use retry_policy_host::cli::{self as cli};
use retry_policy_host::cli::{parse_duration_ms, schedule_table, ComponentSource};
use retry_policy_host::{
    document_classes, ArtifactRef, InMemoryStore, PolicyDocument, PolicyEngine, PolicyInstance, SystemClock,
    ABI_VERSION, WIT_PACKAGE,
};

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
    let get =
        |k: &str| f.get(k).ok_or_else(|| format!("missing --{k} (or --policy FILE; see retry-policy plan --help)"));
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

fn inspect_cmd(file: &str, format: Option<&str>) -> Result<(), String> {
    let json = match format {
        None | Some("text") => false,
        Some("json") => true,
        Some(other) => return Err(format!("--format {other}: json or text")),
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

/// `lint`, `simulate`, `diff`: the policy tools on the component. Errors
/// exit 2.
fn tool(run: ToolCommand, a: Args, component: Option<String>) -> ExitCode {
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

/// The flags given, by their long names (what `plan`, `admit` and `bundle` read).
fn map(pairs: Vec<(&str, Option<String>)>) -> HashMap<String, String> {
    pairs.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect()
}

fn main() -> ExitCode {
    // --help and --version need no artifact: clap answers them before anything loads.
    let version: &'static str =
        Box::leak(format!("{} ({WIT_PACKAGE}, abi {ABI_VERSION})", env!("CARGO_PKG_VERSION")).into_boxed_str());
    let cli = match cli::args::parse(std::env::args(), version) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Lint(l) => {
            let flags = l.rate.into_iter().map(|r| ("rate", Some(r))).chain([("format", l.format)]).collect();
            return tool(commands::lint, tool_args(l.file, flags), l.component.component);
        }
        Command::Simulate(x) => {
            let flags = vec![
                ("policy", x.policy),
                ("scenario", x.scenario),
                ("seed", x.seed),
                ("out", x.out),
                ("format", x.format),
                ("compare-health", x.compare_health.then(|| "yes".to_string())),
            ];
            return tool(commands::simulate, tool_args(Vec::new(), flags), x.component.component);
        }
        Command::Diff(d) => {
            return tool(commands::diff, tool_args(d.files, vec![("format", d.format)]), d.component.component)
        }
        Command::Inspect(i) => inspect_cmd(&i.file, i.format.as_deref()),
        Command::Bundle(b) => bundle_cmd(&map(vec![
            ("policy", b.policy),
            ("out", b.out),
            ("allow-lint-errors", b.allow_lint_errors),
            ("component", b.component.component),
        ])),
        Command::Plan(p) => run(
            "plan",
            &map(vec![
                ("policy", p.policy),
                ("window", p.window),
                ("base", p.base),
                ("factor", p.factor),
                ("cap", p.cap),
                ("jitter", p.jitter),
                ("hard-cap", p.hard_cap),
                ("component", p.component.component),
            ]),
        ),
        Command::Admit(a) => run(
            "admit",
            &map(vec![
                ("policy", a.policy),
                ("class", a.class),
                ("now-ms", a.now_ms),
                ("component", a.component.component),
            ]),
        ),
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
