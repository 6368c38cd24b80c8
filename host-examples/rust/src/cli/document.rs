//! A policy document as every `retry-policy` command reads it: the file
//! read and parsed as `lint` reads it (policy-tools' `source`: TOML when the
//! name ends in `.toml`, else JSON), then loaded by the component as the
//! dispatchers load it ([`Policies`]: format 2, or format 3 with `health`
//! sections). A file that cannot be read or parsed is unreadable input
//! (exit 2); a document the component refuses, or a duplicate key (a lint
//! error), is a refusal (exit 1).

use policy_tools::source::{self, Read};

use super::exit::{usage, Failure};
use crate::{Policies, PolicyEngine, PolicyInstance};

/// The JSON text of the document at `path`, as the component takes it.
pub fn document_text(path: &str) -> Result<String, Failure> {
    match source::read(path).map_err(|e| usage(e.0))? {
        Read::Document(src) => Ok(src.json),
        Read::Duplicate { message, .. } => Err(Failure::Refused(format!("{path}: {message}"))),
    }
}

/// The document at `path` (`Some`), else the one `engine` embeds, loaded in
/// `inst`.
pub fn load(inst: &mut PolicyInstance, engine: &PolicyEngine, path: Option<&str>) -> Result<Policies, Failure> {
    let (text, name) = match path {
        Some(p) => (document_text(p)?, p.to_string()),
        None => match &engine.info().document_json {
            Some(text) => (text.clone(), "the artifact's embedded document".to_string()),
            None => return Err(usage("missing --policy FILE (the artifact embeds no document)")),
        },
    };
    Policies::new(inst, &text).map_err(|e| Failure::from(e).within(&name))
}

/// Check that `path` is a document the component loads, before a tool
/// (`diff`, `simulate`) runs on it: the same exit code as `plan` for it.
pub fn check(inst: &mut PolicyInstance, path: &str) -> Result<(), Failure> {
    let text = document_text(path)?;
    Policies::new(inst, &text).map(|_| ()).map_err(|e| Failure::from(e).within(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ArtifactRef, InMemoryStore, SystemClock};

    fn instance() -> (PolicyEngine, PolicyInstance) {
        let engine =
            PolicyEngine::load(ArtifactRef::Bytes(crate::artifact::EMBEDDED), None).expect("the built-in artifact");
        let inst = engine.instantiate(SystemClock, InMemoryStore::new()).expect("an instance");
        (engine, inst)
    }

    /// A scratch directory of this test process.
    fn scratch(test: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("rp-cli-document-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    fn file(dir: &std::path::Path, name: &str, text: &str) -> String {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write");
        p.display().to_string()
    }

    /// The exit code a load gives (0: loaded).
    fn exit(r: Result<Policies, Failure>) -> u8 {
        r.map_or_else(|e| e.code(), |_| 0)
    }

    const FORMAT_3: &str = r#"{"version": "h1", "health": {}, "classes": {"storm": {"window_ms": 60000,
        "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 8000, "jitter": "full"}}}}"#;

    #[test]
    fn a_format_3_document_loads_with_its_health_sections() {
        let (engine, mut inst) = instance();
        let dir = scratch("format-3");
        let p = file(&dir, "h.json", FORMAT_3);
        let policies = load(&mut inst, &engine, Some(&p)).expect("format 3 loads");
        assert_eq!(policies.current().version, "h1");
        assert!(policies.current().health_of("storm").is_some(), "the class has its section");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_missing_or_unparsable_file_is_unreadable_and_a_refused_document_is_a_refusal() {
        let (engine, mut inst) = instance();
        let dir = scratch("failures");
        let missing = dir.join("missing.json").display().to_string();
        assert_eq!(exit(load(&mut inst, &engine, Some(&missing))), 2);
        let broken = file(&dir, "broken.toml", "version = ");
        assert_eq!(exit(load(&mut inst, &engine, Some(&broken))), 2);
        let refused = file(&dir, "refused.json", r#"{"version": "1", "classes": {"a": {"window_ms": 1}}}"#);
        let Err(e) = load(&mut inst, &engine, Some(&refused)) else { panic!("{refused} was loaded") };
        assert_eq!(e.code(), 1, "{e}");
        assert!(e.to_string().starts_with(&refused), "{e}");
        let duplicate = file(&dir, "dup.toml", "version = \"1\"\nversion = \"2\"\n");
        assert_eq!(check(&mut inst, &duplicate).unwrap_err().code(), 1);
        let _ = std::fs::remove_dir_all(dir);
    }
}
