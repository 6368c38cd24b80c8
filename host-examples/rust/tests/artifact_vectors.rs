//! Every case of `tests/vectors-artifact/artifact.json` (its `about` says
//! how a case runs): the file made in a temporary directory, the
//! environment set, the artifact loaded, the outcome compared. One test in
//! its own binary: the environment is per process. A failure names the case.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use retry_policy_host::artifact::container::sha256_hex;
use retry_policy_host::artifact::{EMBEDDED, MAX_ARTIFACT_BYTES};
use retry_policy_host::{ArtifactRef, ArtifactSource, PolicyEngine, ARTIFACT_ENV, ARTIFACT_SHA256_ENV};
use serde_json::{Map, Value};

const VECTORS: &str = include_str!("../../../tests/vectors-artifact/artifact.json");

#[test]
fn every_artifact_vector_gives_the_outcome_it_expects() {
    let doc: Value = serde_json::from_str(VECTORS).unwrap();
    let doc = doc.as_object().unwrap();
    only(doc, &["about", "cap_bytes", "cases"]).unwrap();
    assert_eq!(doc["cap_bytes"].as_u64(), Some(MAX_ARTIFACT_BYTES as u64), "the vectors' cap is this host's");
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let root = std::env::temp_dir().join(format!("rp-artifact-vectors-{}", std::process::id()));
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap_or("(no name)");
        let dir = root.join(i.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        if let Err(why) = run(case.as_object().unwrap(), &dir) {
            failures.push(format!("{name}: {why}"));
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    std::env::remove_var(ARTIFACT_ENV);
    std::env::remove_var(ARTIFACT_SHA256_ENV);
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

fn only(o: &Map<String, Value>, known: &[&str]) -> Result<(), String> {
    match o.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown field `{k}`")),
        None => Ok(()),
    }
}

/// A case's file: its path, its bytes (when it has any) and the fifo's watchdog.
struct Made {
    path: PathBuf,
    bytes: Option<Vec<u8>>,
    watchdog: Option<Child>,
}

fn make(spec: &Map<String, Value>, dir: &Path) -> Result<Made, String> {
    let kind = spec.get("kind").and_then(Value::as_str).ok_or("file: no kind")?;
    let n = || spec.get("bytes").and_then(Value::as_u64).ok_or(format!("file: {kind} needs bytes"));
    let path = dir.join("artifact.wasm");
    let mut made = Made { path: path.clone(), bytes: None, watchdog: None };
    let write = |bytes: Vec<u8>| -> Result<Option<Vec<u8>>, String> {
        std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
        Ok(Some(bytes))
    };
    match kind {
        "shipped" => {
            only(spec, &["kind"])?;
            made.bytes = write(EMBEDDED.to_vec())?;
        }
        "shipped_prefix" => {
            only(spec, &["kind", "bytes"])?;
            made.bytes = write(EMBEDDED[..n()? as usize].to_vec())?;
        }
        "zeros" => {
            only(spec, &["kind", "bytes"])?;
            made.bytes = write(vec![0; n()? as usize])?;
        }
        "text" => {
            only(spec, &["kind", "text"])?;
            made.bytes = write(spec.get("text").and_then(Value::as_str).ok_or("file: text needs text")?.into())?;
        }
        "sparse" => {
            only(spec, &["kind", "bytes"])?;
            let len = n()?;
            std::fs::File::create(&path).and_then(|f| f.set_len(len)).map_err(|e| e.to_string())?;
        }
        "missing" => only(spec, &["kind"])?,
        "directory" => {
            only(spec, &["kind"])?;
            std::fs::create_dir(&path).map_err(|e| e.to_string())?;
        }
        "device" => {
            only(spec, &["kind", "path"])?;
            made.path = spec.get("path").and_then(Value::as_str).ok_or("file: device needs path")?.into();
        }
        "fifo" => {
            only(spec, &["kind"])?;
            let ok = Command::new("mkfifo").arg(&path).status().map_err(|e| e.to_string())?.success();
            if !ok {
                return Err("mkfifo failed".into());
            }
            // After 5 s, open it for writing and close it: a loader blocked on it then reads an empty file.
            let watchdog = Command::new("sh").args(["-c", "sleep 5; : > \"$0\""]).arg(&path).spawn();
            made.watchdog = Some(watchdog.map_err(|e| e.to_string())?);
        }
        other => return Err(format!("file: unknown kind `{other}`")),
    }
    Ok(made)
}

fn run(case: &Map<String, Value>, dir: &Path) -> Result<(), String> {
    only(case, &["name", "file", "via", "env", "pin", "expect", "source"])?;
    let mut made = match case.get("file") {
        Some(spec) => Some(make(spec.as_object().ok_or("file: not an object")?, dir)?),
        None => None,
    };
    let sha = made.as_ref().and_then(|m| m.bytes.as_deref()).map(sha256_hex);
    let subst = |text: &str| -> Result<String, String> {
        let mut out = text.to_string();
        if out.contains("{path}") {
            let path = made.as_ref().ok_or("{path} without a file")?.path.display().to_string();
            out = out.replace("{path}", &path);
        }
        for (key, f) in [("{sha256}", 0), ("{SHA256}", 1), ("{Sha256}", 2)] {
            if out.contains(key) {
                let s = sha.as_deref().ok_or(format!("{key} of a file without bytes"))?;
                let v = match f {
                    0 => s.to_string(),
                    1 => s.to_ascii_uppercase(),
                    _ => format!("{}{}", s[..32].to_ascii_uppercase(), &s[32..]),
                };
                out = out.replace(key, &v);
            }
        }
        Ok(out)
    };
    std::env::remove_var(ARTIFACT_ENV);
    std::env::remove_var(ARTIFACT_SHA256_ENV);
    if let Some(env) = case.get("env") {
        let env = env.as_object().ok_or("env: not an object")?;
        only(env, &[ARTIFACT_ENV, ARTIFACT_SHA256_ENV]).map_err(|e| format!("env: {e}"))?;
        for (k, v) in env {
            std::env::set_var(k, subst(v.as_str().ok_or("env: not a string")?)?);
        }
    }
    let pin = match case.get("pin") {
        Some(p) => Some(subst(p.as_str().ok_or("pin: not a string")?)?),
        None => None,
    };
    let via = case.get("via").and_then(Value::as_str).ok_or("no via")?;
    let artifact = match (via, &made) {
        ("path", Some(m)) => ArtifactRef::Path(&m.path),
        ("bytes", Some(Made { bytes: Some(b), .. })) => ArtifactRef::Bytes(b),
        ("default", _) => ArtifactRef::Default,
        _ => return Err(format!("via `{via}` does not fit the file")),
    };
    let result = PolicyEngine::load(artifact, pin.as_deref());
    if let Some(mut w) = made.as_mut().and_then(|m| m.watchdog.take()) {
        let _ = w.kill();
        let _ = w.wait();
    }
    let expect = case.get("expect").and_then(Value::as_str).ok_or("no expect")?;
    let outcome = match &result {
        Ok(_) => "ok".to_string(),
        Err(e) => e.code().to_string(),
    };
    let detail = result.as_ref().err().map(|e| format!(" ({e})")).unwrap_or_default();
    if outcome != expect {
        return Err(format!("expected {expect}, got {outcome}{detail}"));
    }
    if let (Ok(engine), Some(source)) = (&result, case.get("source").and_then(Value::as_str)) {
        let want = match source {
            "path" => ArtifactSource::Path(made.as_ref().ok_or("source path without a file")?.path.clone()),
            "bytes" => ArtifactSource::Bytes,
            "embedded" => ArtifactSource::Embedded,
            other => return Err(format!("unknown source `{other}`")),
        };
        if engine.info().source != want {
            return Err(format!("expected source {want}, got {}", engine.info().source));
        }
    }
    Ok(())
}
