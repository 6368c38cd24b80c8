//! `retry-policy bundle` and `retry-policy inspect`: a component with a
//! validated policy document embedded (`webhook-retry-policy:document`), and
//! what an artifact file is (`docs/artifact.md`).

use std::fmt::Write as _;

use policy_tools::lint::{lint_file, lint_text, Severity};
use serde_json::json;

use super::document::document_text;
use super::exit::{usage, Failure};
use super::ComponentSource;
use crate::artifact::{container, env_path, read_file};
use crate::{document_classes, ArtifactRef, InMemoryStore, PolicyEngine, PolicyInstance, SystemClock};

fn instance(engine: &PolicyEngine) -> Result<PolicyInstance, Failure> {
    Ok(engine.instantiate(SystemClock, InMemoryStore::new())?)
}

/// The bytes of the artifact `artifact` names with the document at
/// `policy_path` embedded, replacing any embedded before, and the lint
/// errors that were allowed. The document must load in the component, and
/// lint without errors unless `allow_lint_errors`; the result is loaded
/// again (every check of `docs/artifact.md`) before it is returned. A file
/// that cannot be read is [`Failure::Usage`]; a refused artifact or
/// document, or lint errors, [`Failure::Refused`].
pub fn bundle(
    artifact: ArtifactRef<'_>,
    policy_path: &str,
    allow_lint_errors: bool,
) -> Result<(Vec<u8>, Vec<String>), Failure> {
    let bytes = match artifact {
        ArtifactRef::Path(p) => read_file(p)?,
        ArtifactRef::Bytes(b) => b.to_vec(),
        ArtifactRef::Default => match env_path() {
            Some(p) => read_file(std::path::Path::new(&p))?,
            None => crate::artifact::EMBEDDED.to_vec(),
        },
    };
    let engine = PolicyEngine::from_bytes(&bytes)?;
    let json = document_text(policy_path)?;
    let mut inst = instance(&engine)?;
    // Format 2 or 3: the artifact's own `load-health-document`, as a loader reads it.
    inst.load_health_document(&json).map_err(|e| Failure::from(e).within(policy_path))?;
    let report = lint_file(&mut ComponentSource(inst), policy_path, &[]).map_err(|e| usage(e.0))?;
    let errors: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("  {} {}: {}", f.rule, f.field, f.message))
        .collect();
    if !errors.is_empty() && !allow_lint_errors {
        return Err(Failure::Refused(format!(
            "{policy_path}: lint found {} error(s), not bundled (--allow-lint-errors bundles it anyway):\n{}",
            errors.len(),
            errors.join("\n")
        )));
    }
    let sections = container::parse(&bytes).map_err(|e| Failure::Refused(e.to_string()))?;
    let out = sections.with_document(&bytes, &json);
    let check =
        PolicyEngine::from_bytes(&out).map_err(|e| Failure::Refused(format!("the bundle does not load: {e}")))?;
    if check.document().is_none() {
        return Err(Failure::Refused("the bundle does not carry its document".into()));
    }
    Ok((out, errors))
}

/// What `path` is, as JSON: WIT package and ABI, sha256, size, build
/// provenance, and the embedded document (version, classes with their
/// policy hashes, the classes with a `health` section, lint summary). `Err`:
/// the file cannot be read (exit 2) or the artifact was refused (its code, exit 1).
pub fn inspect(path: &str) -> Result<serde_json::Value, Failure> {
    let engine = PolicyEngine::from_file(path)?;
    let info = engine.info().clone();
    let build = info.build.as_ref().map(|b| {
        json!({"policy_core_version": b.policy_core_version, "wit_package": b.wit_package, "source_digest": b.source_digest})
    });
    let document = match (engine.document(), &info.document_json) {
        (Some(doc), Some(text)) => {
            let mut inst = instance(&engine)?;
            let mut classes = Vec::new();
            for (name, policy) in document_classes(doc) {
                let admitted = inst.admit(doc, &name, 0)?;
                // A class with `health` is admitted under `load-health-document`'s hash (it covers the section).
                let health_hash = engine
                    .health_document()
                    .and_then(|h| h.classes.iter().find(|c| c.name == name && c.health.is_some()))
                    .map(|c| c.policy_hash.clone());
                classes.push(json!({
                    "name": name,
                    "policy_hash": health_hash.unwrap_or(admitted.policy_hash),
                    "max_attempts": admitted.schedule.max_attempts,
                    "window_ms": policy.window_ms,
                }));
            }
            let report = lint_text(&mut ComponentSource(inst), "embedded.json", text, &[])
                .map_err(|e| Failure::Refused(format!("the embedded document: {e}")))?;
            json!({
                "version": doc.version,
                "classes": classes,
                "health_classes": info.health_classes,
                "lint": {
                    "errors": report.count(Severity::Error),
                    "warnings": report.count(Severity::Warning),
                    "infos": report.count(Severity::Info),
                },
            })
        }
        _ => serde_json::Value::Null,
    };
    Ok(json!({
        "path": path,
        "wit_package": info.abi,
        "abi_version": info.abi_version,
        "sha256": info.sha256,
        "size_bytes": info.size_bytes,
        "build": build,
        "document": document,
    }))
}

/// `inspect`'s text form.
pub fn inspect_text(v: &serde_json::Value) -> String {
    let s = |x: &serde_json::Value| x.as_str().map_or_else(|| x.to_string(), str::to_string);
    let mut out = String::new();
    let _ = writeln!(out, "artifact     {}", s(&v["path"]));
    let _ = writeln!(out, "wit package  {} (abi {})", s(&v["wit_package"]), v["abi_version"]);
    let _ = writeln!(out, "sha256       {}", s(&v["sha256"]));
    let _ = writeln!(out, "size         {} bytes", v["size_bytes"]);
    match v["build"].as_object() {
        Some(b) => {
            let _ = writeln!(
                out,
                "build        policy-core {}, {}, source {}",
                s(&b["policy_core_version"]),
                s(&b["wit_package"]),
                s(&b["source_digest"])
            );
        }
        None => out.push_str("build        (no provenance section)\n"),
    }
    let doc = &v["document"];
    if doc.is_null() {
        out.push_str("document     (none embedded)\n");
        return out;
    }
    let lint = &doc["lint"];
    let _ = writeln!(
        out,
        "document     version {}: lint {} error(s), {} warning(s), {} info",
        s(&doc["version"]),
        lint["errors"],
        lint["warnings"],
        lint["infos"]
    );
    let health: Vec<String> = doc["health_classes"].as_array().into_iter().flatten().map(s).collect();
    let _ = writeln!(
        out,
        "health       {}",
        if health.is_empty() { "(none: format 2)".to_string() } else { health.join(", ") }
    );
    for c in doc["classes"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "  class {:<16} policy_hash {}  max_attempts {}  window_ms {}",
            s(&c["name"]),
            s(&c["policy_hash"]),
            c["max_attempts"],
            c["window_ms"]
        );
    }
    out
}
