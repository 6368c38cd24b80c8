//! `RETRY_POLICY_ARTIFACT` and `RETRY_POLICY_ARTIFACT_SHA256` (one test: the
//! environment is per process, so its steps run in order in their own binary).

use retry_policy_host::artifact::container::{self, sha256_hex};
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::{ArtifactSource, PolicyEngine, ARTIFACT_ENV, ARTIFACT_SHA256_ENV};

#[test]
fn the_default_is_the_environments_path_else_the_embedded_copy_and_the_pin_applies() {
    std::env::remove_var(ARTIFACT_ENV);
    std::env::remove_var(ARTIFACT_SHA256_ENV);
    let engine = PolicyEngine::load_default().unwrap();
    assert_eq!(engine.info().source, ArtifactSource::Embedded);

    let dir = std::env::temp_dir().join(format!("rp-artifact-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bundle.wasm");
    let doc = r#"{"version":"env-1","classes":{"storm":{"window_ms":60000,"backoff":{"base_ms":100,"factor":2.0,"cap_ms":1000}}}}"#;
    let bundle = container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, doc);
    std::fs::write(&path, &bundle).unwrap();
    std::env::set_var(ARTIFACT_ENV, &path);
    let engine = PolicyEngine::load_default().unwrap();
    assert_eq!(engine.info().source, ArtifactSource::Path(path.clone()));
    assert_eq!(engine.info().document_version.as_deref(), Some("env-1"));

    std::env::set_var(ARTIFACT_SHA256_ENV, sha256_hex(EMBEDDED));
    let e = PolicyEngine::load_default().err().unwrap();
    assert_eq!(e.code(), "artifact_sha256_mismatch");
    std::env::set_var(ARTIFACT_SHA256_ENV, sha256_hex(&bundle));
    assert!(PolicyEngine::load_default().is_ok());

    // Set but unreadable: an error, never a silent fallback to the embedded copy.
    std::env::remove_var(ARTIFACT_SHA256_ENV);
    std::env::set_var(ARTIFACT_ENV, dir.join("missing.wasm"));
    assert_eq!(PolicyEngine::load_default().err().unwrap().code(), "artifact_unreadable");
    std::env::remove_var(ARTIFACT_ENV);
    let _ = std::fs::remove_dir_all(dir);
}
