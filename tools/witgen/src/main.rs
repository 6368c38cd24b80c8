//! `witgen`: the host glue, generated from `wit/` instead of kept by hand.
//!
//! ```text
//! witgen go      OUT_DIR        Go type mirrors + canonical-ABI lift/lower (wazero host)
//! witgen python  OUT_DIR        Python frozen slotted classes/enums + fast-path layouts (wasmtime-py host)
//! witgen ts      OUT_DIR        TypeScript declarations for the npm package
//!                               (each language also gets the REPLICA help texts: usage.rs)
//! witgen core    COMPONENT OUT  the component's main core module (Go and Python embed it)
//! witgen check   LANG OUT_DIR   exit 1 when regenerating would change a file (stale)
//! ```
//!
//! Every generated file starts with `GENERATED - DO NOT EDIT` and the
//! command that regenerates it (`scripts/generate` regenerates everything).
//! Layouts come from `wit-parser`'s own `SizeAlign` and flat signatures, so
//! they follow the canonical ABI by construction.

mod core_module;
mod go;
mod python;
mod ts;
mod usage;
mod wit;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

/// One generated file: path relative to the output directory, and contents.
pub struct Generated {
    pub path: &'static str,
    pub contents: String,
}

fn generate(lang: &str, wit: &wit::Wit) -> Result<Vec<Generated>> {
    let regen = |out: &str| format!("scripts/generate (or: cargo run -q -p witgen -- {lang} {out})");
    let (mut files, usage) = match lang {
        "go" => (go::emit(wit)?, usage::go(&regen("host-examples/go/retrypolicy"))),
        "python" => {
            (python::emit(wit)?, usage::python(&regen("host-examples/python/src/webhook_retry_policy/_generated")))
        }
        "ts" => (ts::emit(wit)?, usage::node(&regen("host-examples/node/lib"))),
        other => bail!("unknown language `{other}` (go, python, ts)"),
    };
    files.push(usage); // the REPLICA command line's texts (usage.rs)
    Ok(files)
}

fn wit_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wit")
}

fn run(args: &[String]) -> Result<bool> {
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["core", component, out] => {
            let bytes = std::fs::read(component).with_context(|| format!("reading {component}"))?;
            let core = core_module::main_module(&bytes)?;
            std::fs::write(out, core).with_context(|| format!("writing {out}"))?;
            Ok(true)
        }
        ["check", lang, out] => {
            let wit = wit::Wit::load(&wit_dir())?;
            let mut fresh = true;
            for g in generate(lang, &wit)? {
                let path = Path::new(out).join(g.path);
                let old = std::fs::read_to_string(&path).unwrap_or_default();
                if old != g.contents {
                    eprintln!("stale: {} (run scripts/generate)", path.display());
                    fresh = false;
                }
            }
            Ok(fresh)
        }
        [lang, out] => {
            let wit = wit::Wit::load(&wit_dir())?;
            for g in generate(lang, &wit)? {
                let path = Path::new(out).join(g.path);
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                std::fs::write(&path, g.contents).with_context(|| format!("writing {}", path.display()))?;
            }
            Ok(true)
        }
        _ => bail!("usage: witgen (go|python|ts) OUT_DIR | witgen core COMPONENT OUT | witgen check LANG OUT_DIR"),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("witgen: {e:#}");
            ExitCode::from(2)
        }
    }
}
