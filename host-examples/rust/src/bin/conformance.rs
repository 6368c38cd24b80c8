//! `conformance --host native|wasmtime [DIR|FILE ...]`: run vector files and
//! print `HOST: N passed, M failed`, one line per failing case before it.
//! Exits 1 on any failure (including broken vectors and unknown ops).
//! `wasmtime` runs the artifact `$RETRY_POLICY_ARTIFACT` names, else the one
//! built into this binary (`--component PATH` overrides both), and names it
//! on stderr (`wasmtime: policy artifact loaded ... document_version=...
//! health_classes=a,b`).

use std::path::PathBuf;
use std::process::ExitCode;

use retry_policy_host::conformance::{run, vector_files, Host, Native};
use retry_policy_host::{ArtifactRef, InMemoryStore, PolicyEngine, SystemClock};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut host_name = String::from("native");
    let mut dirs = Vec::new();
    let mut component: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--host" => host_name = args.next().unwrap_or_default(),
            "--component" => component = args.next().map(PathBuf::from),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() {
        dirs.push(PathBuf::from("tests/vectors"));
    }
    let mut host: Box<dyn Host> = match host_name.as_str() {
        "native" => Box::new(Native),
        "wasmtime" => {
            match PolicyEngine::load(component.as_deref().map_or(ArtifactRef::Default, ArtifactRef::Path), None)
                .map_err(Into::into)
                .and_then(|e| {
                    // The banner (stderr): which artifact, its embedded document's version and health classes.
                    let info = e.info();
                    eprintln!("wasmtime: {} health_classes={}", info.loaded_line(), info.health_classes.join(","));
                    e.instantiate(SystemClock, InMemoryStore::new())
                }) {
                Ok(i) => Box::new(i),
                Err(e) => {
                    eprintln!("{e}");
                    println!("wasmtime: 0 passed, 1 failed");
                    return ExitCode::FAILURE;
                }
            }
        }
        other => {
            eprintln!("unknown host `{other}` (native or wasmtime)");
            return ExitCode::from(2);
        }
    };
    let mut files = Vec::new();
    for d in &dirs {
        match vector_files(d) {
            Ok(f) => files.extend(f),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        }
    }
    let report = run(host.as_mut(), &files);
    for f in &report.failures {
        println!("  FAIL {f}");
    }
    println!("{}: {} passed, {} failed", host.name(), report.passed, report.failed);
    if report.failed == 0 && report.passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
