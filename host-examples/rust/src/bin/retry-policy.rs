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
//!   retry-policy publish ARTIFACT --redis URL | --redis-cluster URL --key FILE [--canary PERCENT]
//!   retry-policy rollout status|promote|rollback --redis URL | --redis-cluster URL [--json]
//!   global: --component PATH   (default: $RETRY_POLICY_ARTIFACT, else the copy built into this binary)
//!
//! Exit status, one rule for every command (`cli::exit`): 0 done; 1 a
//! finding or a refusal; 2 a usage error or unreadable input.

use std::path::Path;
use std::process::ExitCode;

use policy_tools::commands::{self, Args};
use retry_policy_core::{Backoff, Jitter};
use retry_policy_host::cli::args::{tool_args, Admit, Bundle, Command, Plan};
use retry_policy_host::cli::artifact::{bundle, inspect, inspect_text};
use retry_policy_host::cli::exit::{usage, Failure};
use retry_policy_host::cli::{self as cli, document};
use retry_policy_host::cli::{parse_duration_ms, schedule_table, ComponentSource};
use retry_policy_host::{
    document_classes, ArtifactRef, InMemoryStore, PolicyEngine, PolicyInstance, SystemClock, ABI_VERSION, WIT_PACKAGE,
};

/// The artifact of `--component`, else `$RETRY_POLICY_ARTIFACT`, else the copy built in, and an instance of it.
fn load(component: Option<&str>) -> Result<(PolicyEngine, PolicyInstance), Failure> {
    let artifact = component.map_or(ArtifactRef::Default, |p| ArtifactRef::Path(Path::new(p)));
    let engine = PolicyEngine::load(artifact, None)?;
    let inst = engine.instantiate(SystemClock, InMemoryStore::new())?;
    Ok((engine, inst))
}

fn plan_cmd(p: Plan) -> Result<u8, Failure> {
    let (engine, mut inst) = load(p.component.component.as_deref())?;
    let schedule_flags = [&p.window, &p.base, &p.factor, &p.cap, &p.jitter, &p.hard_cap];
    let from_flags = schedule_flags.iter().any(|f| f.is_some());
    if p.policy.is_some() && from_flags {
        return Err(usage("give --policy FILE or --window/--base/--factor/--cap/--jitter/--hard-cap, not both"));
    }
    if !from_flags && (p.policy.is_some() || engine.info().document_json.is_some()) {
        let policies = document::load(&mut inst, &engine, p.policy.as_deref())?;
        for (name, c) in document_classes(&policies.current().document) {
            let plan = inst.plan(&c.backoff, c.window_ms, c.hard_cap)?;
            print!("{}", schedule_table(&name, &c.backoff, c.window_ms, c.hard_cap, &plan)?);
            println!();
        }
        return Ok(0);
    }
    let get = |k: &str, v: &Option<String>| {
        v.clone().ok_or_else(|| usage(format!("missing --{k} (or --policy FILE; see retry-policy plan --help)")))
    };
    let duration =
        |k: &str, v: &Option<String>| parse_duration_ms(&get(k, v)?).map_err(|e| usage(format!("--{k} {e}")));
    let factor = get("factor", &p.factor)?;
    let backoff = Backoff {
        base_ms: duration("base", &p.base)?,
        factor: factor.parse().map_err(|_| usage(format!("--factor must be a number, not `{factor}`")))?,
        cap_ms: duration("cap", &p.cap)?,
        jitter: Jitter::parse(p.jitter.as_deref().unwrap_or("full")).map_err(|e| usage(format!("--jitter: {e}")))?,
    };
    let window = duration("window", &p.window)?;
    let hard_cap: u32 = match &p.hard_cap {
        None => 16,
        Some(h) => h.parse().map_err(|_| usage(format!("--hard-cap must be a whole number, not `{h}`")))?,
    };
    // Every value is checked by the component: `--factor -2` is its typed refusal.
    let plan = inst.plan(&backoff, window, hard_cap)?;
    print!("{}", schedule_table("plan", &backoff, window, hard_cap, &plan)?);
    Ok(0)
}

fn admit_cmd(a: Admit) -> Result<u8, Failure> {
    let class = a.class.ok_or_else(|| usage("missing --class NAME"))?;
    let now: u64 = match &a.now_ms {
        Some(n) => {
            n.parse().map_err(|_| usage(format!("--now-ms must be a whole number of milliseconds, not `{n}`")))?
        }
        None => retry_policy_core::Clock::now_ms(&SystemClock),
    };
    let (engine, mut inst) = load(a.component.component.as_deref())?;
    // Format 3 too: a class with `health` is admitted with its section (the hash covers it).
    let policies = document::load(&mut inst, &engine, a.policy.as_deref())?;
    let a = policies.admit(&mut inst, &class, now)?;
    println!("class={} policy_version={} policy_hash={}", a.class, a.policy_version, a.policy_hash);
    println!(
        "first_attempted_at_ms={} deadline_ms={} max_attempts={}",
        a.first_attempted_at_ms, a.deadline_ms, a.schedule.max_attempts
    );
    println!("offsets_ms={:?}", a.schedule.offsets_ms);
    Ok(0)
}

fn bundle_cmd(b: Bundle) -> Result<u8, Failure> {
    let policy = b.policy.ok_or_else(|| usage("missing --policy FILE"))?;
    let out = b.out.ok_or_else(|| usage("missing -o OUT.wasm"))?;
    let component = b.component.component;
    let artifact = component.as_deref().map_or(ArtifactRef::Default, |p| ArtifactRef::Path(Path::new(p)));
    let allow = match b.allow_lint_errors.as_deref() {
        None | Some("no") => false,
        Some("yes") => true,
        Some(other) => return Err(usage(format!("--allow-lint-errors {other}: yes or no"))),
    };
    let (bytes, allowed) = bundle(artifact, &policy, allow)?;
    if !allowed.is_empty() {
        eprintln!(
            "warning: bundled with {} lint error(s) (--allow-lint-errors yes):\n{}",
            allowed.len(),
            allowed.join("\n")
        );
    }
    std::fs::write(&out, &bytes).map_err(|e| usage(format!("-o {out}: {e}")))?;
    let engine = PolicyEngine::from_bytes(&bytes)?;
    let info = engine.info();
    println!(
        "{out}: {} bytes, sha256 {}, document version {}",
        info.size_bytes,
        info.sha256,
        info.document_version.as_deref().unwrap_or("")
    );
    Ok(0)
}

fn inspect_cmd(file: &str, format: Option<&str>) -> Result<u8, Failure> {
    let json = match format {
        None | Some("text") => false,
        Some("json") => true,
        Some(other) => return Err(usage(format!("--format {other}: json or text"))),
    };
    let v = inspect(file)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| Failure::Refused(e.to_string()))?);
    } else {
        print!("{}", inspect_text(&v));
    }
    Ok(0)
}

/// `publish` (docs/rollout.md): prints the new record.
#[cfg(feature = "rollout")]
fn publish_cmd(p: retry_policy_host::cli::args::Publish) -> Result<u8, Failure> {
    use retry_policy_host::cli::rollout;
    let key = p.key.ok_or_else(|| usage("missing --key FILE (a PKCS#8 PEM Ed25519 private key)"))?;
    let canary = rollout::canary_percent(p.canary.as_deref())?;
    // The artifact and the key are checked before the store is reached.
    let signed = rollout::sign(&p.artifact, &key)?;
    let mut conn =
        rollout::connect(p.store.redis.as_deref(), p.store.redis_cluster.as_deref(), p.store.ca_file.as_deref())?;
    let record = rollout::publish_signed(conn.as_mut(), &signed, canary)?;
    println!("{}", record.canonical());
    Ok(0)
}

/// `rollout status|promote|rollback`.
#[cfg(feature = "rollout")]
fn rollout_cmd(r: retry_policy_host::cli::args::Rollout) -> Result<u8, Failure> {
    use retry_policy_host::cli::args::RolloutAction;
    use retry_policy_host::cli::rollout;
    use retry_policy_host::rollout::admin;
    let store = match &r.action {
        RolloutAction::Status(s) => &s.store,
        RolloutAction::Promote(c) | RolloutAction::Rollback(c) => &c.store,
    };
    let mut conn = rollout::connect(store.redis.as_deref(), store.redis_cluster.as_deref(), store.ca_file.as_deref())?;
    let record = match r.action {
        RolloutAction::Status(s) => {
            let status = rollout::status(conn.as_mut(), rollout::now_ms())?;
            if s.json {
                println!("{}", status.json());
            } else {
                print!("{}", status.text());
            }
            return Ok(0);
        }
        RolloutAction::Promote(_) => admin::promote(conn.as_mut())?,
        RolloutAction::Rollback(_) => admin::rollback(conn.as_mut())?,
    };
    println!("{}", record.canonical());
    Ok(0)
}

type ToolCommand = fn(&mut dyn policy_tools::DecisionSource, &Args, &mut dyn std::io::Write) -> Result<u8, String>;

/// `lint`, `simulate`, `diff`: the policy tools on the component. The
/// `documents` are loaded first as `plan` loads them (a refused one exits
/// 1, an unreadable one 2); the tools' own errors are usage errors (2).
fn tool(run: ToolCommand, a: Args, component: Option<String>, documents: &[&String]) -> Result<u8, Failure> {
    let (_engine, mut inst) = load(component.as_deref())?;
    for path in documents {
        document::check(&mut inst, path)?;
    }
    let mut out = std::io::stdout().lock();
    run(&mut ComponentSource(inst), &a, &mut out).map_err(usage)
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
            tool(commands::lint, tool_args(l.file, flags), l.component.component, &[])
        }
        Command::Simulate(x) => {
            let policy = x.policy.clone();
            let flags = vec![
                ("policy", x.policy),
                ("scenario", x.scenario),
                ("seed", x.seed),
                ("out", x.out),
                ("format", x.format),
                ("compare-health", x.compare_health.then(|| "yes".to_string())),
            ];
            let docs: Vec<&String> = policy.iter().collect();
            tool(commands::simulate, tool_args(Vec::new(), flags), x.component.component, &docs)
        }
        Command::Diff(d) => {
            let files = d.files.clone();
            let docs: Vec<&String> = if files.len() == 2 { files.iter().collect() } else { Vec::new() };
            tool(commands::diff, tool_args(d.files, vec![("format", d.format)]), d.component.component, &docs)
        }
        Command::Inspect(i) => inspect_cmd(&i.file, i.format.as_deref()),
        Command::Bundle(b) => bundle_cmd(b),
        Command::Plan(p) => plan_cmd(p),
        Command::Admit(a) => admit_cmd(a),
        #[cfg(feature = "rollout")]
        Command::Publish(p) => publish_cmd(p),
        #[cfg(feature = "rollout")]
        Command::Rollout(r) => rollout_cmd(r),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(failure) => failure.report(),
    }
}
