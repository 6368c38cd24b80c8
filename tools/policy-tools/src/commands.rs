//! The `lint`, `simulate` and `diff` subcommands, engine-agnostic: the
//! `retry-policy` CLI parses nothing itself, it hands its arguments and the
//! component engine to these.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use retry_policy_core::document::PolicyDocument;

use crate::charts::{schedule_svg, share_svg, stops_svg, ScheduleSeries};
use crate::engine::{ceilings, DecisionSource, EngineError};
use crate::lint::{self, Rate};
use crate::sim::{self, output, Scenario};
use crate::{diff as diffs, source};

/// `--key value` pairs (repeatable) and positional arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    pub positional: Vec<String>,
    pub flags: Vec<(String, String)>,
}

impl Args {
    pub fn parse(args: &[String]) -> Result<Args, String> {
        let mut a = Args::default();
        let mut it = args.iter();
        while let Some(x) = it.next() {
            match x.strip_prefix("--") {
                Some(k) => {
                    let v = it.next().ok_or_else(|| format!("--{k} needs a value"))?;
                    a.flags.push((k.to_string(), v.clone()));
                }
                None => a.positional.push(x.clone()),
            }
        }
        Ok(a)
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    pub fn all(&self, key: &str) -> Vec<&str> {
        self.flags.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect()
    }

    /// Refuse flags the command does not know.
    pub fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.flags.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            Some((k, _)) => Err(format!("unknown option --{k} (known: --{})", known.join(", --"))),
            None => Ok(()),
        }
    }

    fn json(&self) -> Result<bool, String> {
        match self.get("format").unwrap_or("text") {
            "text" => Ok(false),
            "json" => Ok(true),
            other => Err(format!("--format {other}: expected text or json")),
        }
    }
}

/// `lint FILE [--format json] [--rate KEY=N/s]...`: 0 clean, 1 errors, 2 unreadable.
pub fn lint(engine: &mut dyn DecisionSource, args: &Args, out: &mut dyn Write) -> Result<u8, String> {
    args.only(&["format", "rate"])?;
    let [path] = args.positional.as_slice() else { return Err("lint takes one FILE".into()) };
    let json = args.json()?;
    let rates = args.all("rate").into_iter().map(Rate::parse).collect::<Result<Vec<_>, _>>()?;
    let report = match lint::lint_file(engine, path, &rates) {
        Ok(r) => r,
        Err(e) => {
            let text = if json {
                format!("{}\n", serde_json::json!({"file": path, "unreadable": e.0}))
            } else {
                format!("unreadable: {}\n", e.0)
            };
            out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
            return Ok(2);
        }
    };
    let text = if json { lint::render_json(&report) } else { lint::render_text(&report) };
    out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(report.exit_code())
}

/// Each class's schedule for the chart: expected and worst-case offsets.
pub fn schedule_series(
    engine: &mut dyn DecisionSource,
    doc: &PolicyDocument,
) -> Result<Vec<ScheduleSeries>, EngineError> {
    let mut out = Vec::new();
    for (name, p) in &doc.classes {
        let plan = engine.plan(&p.backoff, p.window_ms, p.hard_cap)?;
        let c = ceilings(&p.backoff, plan.max_attempts - 1)?;
        let worst = std::iter::once(0).chain(c.iter().scan(0u64, |acc, x| {
            *acc = acc.saturating_add(*x);
            Some(*acc)
        }));
        out.push(ScheduleSeries {
            class: name.clone(),
            window_ms: p.window_ms,
            limited_by: plan.limited_by.as_str().to_string(),
            expected_ms: plan.offsets_ms.clone(),
            worst_ms: worst.collect(),
        });
    }
    Ok(out)
}

fn write(dir: &Path, name: &str, text: &str, written: &mut Vec<String>) -> Result<(), String> {
    let p = dir.join(name);
    std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
    written.push(p.display().to_string());
    Ok(())
}

/// `simulate --policy FILE --scenario FILE [--seed N] [--out DIR] [--format json]`;
/// with `--compare-health yes`, format 2 vs health side by side ([`sim::compare`]).
pub fn simulate(engine: &mut dyn DecisionSource, args: &Args, out: &mut dyn Write) -> Result<u8, String> {
    args.only(&["policy", "scenario", "seed", "out", "format", "compare-health"])?;
    if args.get("compare-health").is_some() {
        return sim::compare::command(engine, args, out);
    }
    let policy = args.get("policy").ok_or("simulate needs --policy FILE")?;
    let scenario = Scenario::read(args.get("scenario").ok_or("simulate needs --scenario FILE")?)?;
    let seed =
        args.get("seed").map(|s| s.parse::<u64>().map_err(|_| format!("--seed {s}: not an integer"))).transpose()?;
    let json = args.json()?;
    let loaded = source::load(engine, policy)?;
    let sections = loaded.health.iter().filter(|(_, h)| h.is_some()).count();
    let doc = loaded.document;
    let started = std::time::Instant::now();
    let simulation = sim::simulate(engine, &doc, &scenario, seed)?;
    let wall = started.elapsed();
    let bw = doc.classes.first().map_or(60, |(_, p)| (p.budget.window_ms / 1000).max(1) as usize);
    let mut text = if json {
        let mut s = serde_json::to_string_pretty(&output::json(&simulation, bw, args.get("out").is_none()))
            .map_err(|e| e.to_string())?;
        s.push('\n');
        s
    } else {
        let virt = simulation.runs.iter().map(|r| r.series.0.len()).max().unwrap_or(0);
        format!(
            "{}virtual time: {virt} s per variant, {} variants, in {:.2} s of wall time\n",
            output::summary(&simulation, bw),
            simulation.runs.len(),
            wall.as_secs_f64()
        )
    };
    if sections > 0 && !json {
        let _ = writeln!(
            text,
            "note: {sections} classes carry a health section; this runs them as format 2 (--compare-health runs both)"
        );
    }
    if let Some(dir) = args.get("out") {
        let dir = Path::new(dir);
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut written = Vec::new();
        write(dir, "summary.txt", &output::summary(&simulation, bw), &mut written)?;
        let full = serde_json::to_string_pretty(&output::json(&simulation, bw, true)).map_err(|e| e.to_string())?;
        write(dir, "series.json", &full, &mut written)?;
        for run in &simulation.runs {
            write(dir, &format!("series-{}.csv", run.variant), &output::csv(run), &mut written)?;
        }
        let series = schedule_series(engine, &doc).map_err(|e| e.to_string())?;
        write(dir, "schedule.svg", &schedule_svg(&series)?, &mut written)?;
        let title = format!("{}: retry share of failing endpoints per second vs the ratio", scenario.name);
        write(dir, "share.svg", &share_svg(&title, &simulation.runs)?, &mut written)?;
        for run in &simulation.runs {
            let title = format!("{} / {}: dead letters per second by stop reason", scenario.name, run.variant);
            write(dir, &format!("stops-{}.svg", run.variant), &stops_svg(&title, run)?, &mut written)?;
        }
        if !json {
            text.push_str(&format!("wrote {}\n", written.join(" ")));
        }
    }
    out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(0)
}

/// `diff OLD NEW [--format json]`: 0 when no class changes, 1 when some do.
pub fn diff(engine: &mut dyn DecisionSource, args: &Args, out: &mut dyn Write) -> Result<u8, String> {
    args.only(&["format"])?;
    let [old, new] = args.positional.as_slice() else { return Err("diff takes OLD NEW".into()) };
    let (a, b) = (source::load(engine, old)?, source::load(engine, new)?);
    let d = diffs::diff(engine, &a, &b).map_err(|e| e.to_string())?;
    let text = if args.json()? { diffs::render_json(&d) } else { diffs::render_text(&d) };
    out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(u8::from(d.iter().any(|c| c.status() != "unchanged")))
}
