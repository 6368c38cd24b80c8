//! The policy artifact (`docs/artifact.md`): the crate's copy, the load
//! checks and their codes, `bundle`'s document section, swapping.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use retry_policy_host::artifact::container::{self, sha256_hex};
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::{
    ArtifactError, ArtifactRef, ArtifactSource, FakeClock, InMemoryStore, LiveArtifact, LiveInstance, PolicyEngine,
    WatchEvent, WIT_PACKAGE,
};

const DOC: &str = r#"{"version":"bundled-7","classes":{"notification":{"window_ms":900000,
  "backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000}}}}"#;

fn bundled(doc: &str) -> Vec<u8> {
    container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, doc)
}

fn code(r: Result<PolicyEngine, ArtifactError>) -> &'static str {
    match r {
        Ok(_) => "loaded",
        Err(e) => e.code(),
    }
}

#[test]
fn the_crates_copy_of_the_artifact_is_byte_identical_to_dist() {
    let dist = concat!(env!("CARGO_MANIFEST_DIR"), "/../../dist/retry_policy.wasm");
    let dist = std::fs::read(dist).expect("dist/retry_policy.wasm (run scripts/build-component)");
    assert!(
        dist == EMBEDDED,
        "host-examples/rust/artifact/retry_policy.wasm is stale (sha256 {} vs dist {}): run scripts/build-component",
        sha256_hex(EMBEDDED),
        sha256_hex(&dist)
    );
}

#[test]
fn the_shipped_artifact_loads_with_its_abi_provenance_and_no_document() {
    let engine = PolicyEngine::from_bytes(EMBEDDED).unwrap();
    let info = engine.info();
    assert_eq!((info.abi.as_str(), info.abi_version), (WIT_PACKAGE, 5));
    assert_eq!(info.sha256, sha256_hex(EMBEDDED));
    assert_eq!(info.sha256.len(), 64);
    assert_eq!(info.source, ArtifactSource::Bytes);
    assert_eq!(info.document_version, None);
    let build = info.build.as_ref().expect("scripts/build-component writes webhook-retry-policy:build");
    assert_eq!(build.wit_package, WIT_PACKAGE);
    assert!(build.source_digest.starts_with("sha256:") && build.source_digest.len() == 71, "{build:?}");
    assert!(engine.document().is_none());
}

#[test]
fn a_section_by_section_rewrite_without_changes_is_byte_identical() {
    assert!(container::parse(EMBEDDED).unwrap().reencoded(EMBEDDED) == EMBEDDED);
}

#[test]
fn a_bundle_is_still_a_component_and_the_host_takes_its_document() {
    let bytes = bundled(DOC);
    let engine = PolicyEngine::from_bytes(&bytes).unwrap();
    assert_eq!(engine.info().document_version.as_deref(), Some("bundled-7"));
    assert_eq!(engine.info().document_json.as_deref(), Some(DOC));
    assert_eq!(engine.document().unwrap().version, "bundled-7");
    assert_ne!(engine.info().sha256, sha256_hex(EMBEDDED));
    // Bundling again replaces the document: still one section.
    let again = container::parse(&bytes).unwrap().with_document(&bytes, &DOC.replace("bundled-7", "bundled-8"));
    let engine = PolicyEngine::from_bytes(&again).unwrap();
    assert_eq!(engine.info().document_version.as_deref(), Some("bundled-8"));
    assert_eq!(again.len(), bytes.len());
}

#[test]
fn each_refusal_has_its_code_and_says_what_was_expected_and_found() {
    let missing = std::env::temp_dir().join("no-such-dir-rp/artifact.wasm");
    let e = PolicyEngine::from_file(&missing).err().unwrap();
    assert_eq!(e.code(), "artifact_unreadable");
    assert!(e.to_string().contains("no-such-dir-rp/artifact.wasm"), "{e}");

    let wrong = "0".repeat(64);
    let e = PolicyEngine::load(ArtifactRef::Bytes(EMBEDDED), Some(&wrong)).err().unwrap();
    assert_eq!(e.code(), "artifact_sha256_mismatch");
    assert!(e.to_string().contains(&wrong) && e.to_string().contains(&sha256_hex(EMBEDDED)), "{e}");
    let right = sha256_hex(EMBEDDED);
    assert_eq!(code(PolicyEngine::load(ArtifactRef::Bytes(EMBEDDED), Some(&right))), "loaded");

    assert_eq!(code(PolicyEngine::from_bytes(&EMBEDDED[..EMBEDDED.len() / 2])), "artifact_invalid");
    assert_eq!(code(PolicyEngine::from_bytes(b"")), "artifact_invalid");
    let core_module = b"\0asm\x01\0\0\0";
    let e = PolicyEngine::from_bytes(core_module).err().unwrap();
    assert!(e.to_string().contains("not a component"), "{e}");

    let mut two = bundled(DOC);
    two.extend(wasm_section(0, b"\x1dwebhook-retry-policy:document{}"));
    let e = PolicyEngine::from_bytes(&two).err().unwrap();
    assert_eq!(e.code(), "artifact_invalid");
    assert!(e.to_string().contains("a second `webhook-retry-policy:document`"), "{e}");

    let e = PolicyEngine::from_bytes(&bundled(r#"{"version":"x","classes":{}}"#)).err().unwrap();
    assert_eq!(e.code(), "artifact_document_invalid", "{e}");
}

fn wasm_section(id: u8, body: &[u8]) -> Vec<u8> {
    assert!(body.len() < 128);
    let mut v = vec![id, body.len() as u8];
    v.extend_from_slice(body);
    v
}

#[test]
fn an_artifact_of_another_wit_version_is_refused_naming_both() {
    // Every name of the interface, moved to 1.1.0 (same length): still a
    // valid component, exporting webhook:retry-policy/policy@1.1.0.
    let from = b"webhook:retry-policy/policy@1.0.0";
    let to = b"webhook:retry-policy/policy@1.1.0";
    let mut bytes = EMBEDDED.to_vec();
    let mut n = 0;
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            n += 1;
        }
        i += 1;
    }
    assert!(n > 0);
    let e = PolicyEngine::from_bytes(&bytes).err().unwrap();
    assert_eq!(e.code(), "artifact_abi_mismatch", "{e}");
    assert_eq!(
        e.to_string(),
        "artifact_abi_mismatch: artifact implements webhook:retry-policy@1.1.0 (abi unknown); \
         this host speaks webhook:retry-policy@1.0.0 (abi 5)"
    );
}

fn until(what: &str, f: impl Fn() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(10), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_swap_is_checked_first_and_instances_move_over_between_calls() {
    let live = Arc::new(LiveArtifact::new(PolicyEngine::from_bytes(EMBEDDED).unwrap()));
    let mut inst = LiveInstance::new(live.clone(), |e| e.instantiate(FakeClock::new(0), InMemoryStore::new())).unwrap();
    let old = sha256_hex(EMBEDDED);
    let e = live.swap_artifact(ArtifactRef::Bytes(&EMBEDDED[..100]), None).unwrap_err();
    assert_eq!(e.code(), "artifact_invalid");
    assert_eq!((live.info().sha256, live.generation()), (old.clone(), 0));

    let bundle = bundled(DOC);
    let swapped = live.swap_artifact(ArtifactRef::Bytes(&bundle), None).unwrap();
    assert_eq!((swapped.old.sha256.as_str(), swapped.generation), (old.as_str(), 1));
    assert!(swapped.line().starts_with(&format!("policy artifact swapped sha256={old} -> {}", sha256_hex(&bundle))));
    // The instance in hand is the old one until it refreshes.
    assert_eq!(inst.info().sha256, old);
    assert_eq!(inst.get().unwrap().abi_version().unwrap(), 5);
    assert_eq!(inst.info().sha256, sha256_hex(&bundle));
}

#[test]
fn a_watched_file_is_swapped_on_a_new_sha256_and_a_refused_one_is_reported_once() {
    let dir = std::env::temp_dir().join(format!("rp-artifact-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("retry_policy.wasm");
    std::fs::write(&path, EMBEDDED).unwrap();
    let live = Arc::new(LiveArtifact::new(PolicyEngine::from_file(&path).unwrap()));
    let events: Arc<Mutex<Vec<WatchEvent>>> = Arc::default();
    let seen = events.clone();
    live.watch_artifact(&path, Duration::from_millis(10), move |e| seen.lock().unwrap().push(e.clone())).unwrap();

    let bundle = bundled(DOC);
    let tmp = dir.join("next.wasm");
    std::fs::write(&tmp, &bundle).unwrap();
    std::fs::rename(&tmp, &path).unwrap(); // a deploy: rename over the old file
    until("the swap", || live.info().sha256 == sha256_hex(&bundle));
    assert_eq!(live.info().source, ArtifactSource::Path(path.clone()));

    // Renamed over, like the deploy above: `fs::write` truncates first, and a
    // poll between the truncation and the write sees (and reports) an empty
    // file, a second refusal this test would count (seen once in CI).
    std::fs::write(&tmp, b"\0asm broken").unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    until("the refusal", || events.lock().unwrap().len() == 2);
    std::thread::sleep(Duration::from_millis(100)); // ten more polls of the same bad file
    let events = events.lock().unwrap();
    assert_eq!(events.len(), 2, "a refused file is reported once: {events:?}");
    assert!(matches!(&events[0], WatchEvent::Swapped(s) if s.new.document_version.as_deref() == Some("bundled-7")));
    let line = events[1].line();
    assert!(
        line.contains("code=artifact_invalid") && line.contains(&format!("keeping sha256={}", sha256_hex(&bundle))),
        "{line}"
    );
    assert_eq!(live.info().sha256, sha256_hex(&bundle));
    drop(events);
    let _ = std::fs::remove_dir_all(dir);
}

/// The artifact with the end of the main module's `abi-version` body
/// (`i32.const 3`, `end`) replaced by `tail` (same length).
fn with_abi_version_tail(tail: [u8; 3]) -> Vec<u8> {
    use wasmparser::{ExternalKind, Parser, Payload, TypeRef};
    let (mut depth, mut imported, mut index, mut body) = (0usize, 0u32, None, None);
    let mut seen = 0u32;
    for p in Parser::new(0).parse_all(EMBEDDED) {
        match p.unwrap() {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ImportSection(s) if depth == 1 => {
                for imports in s {
                    for import in imports.unwrap() {
                        imported += u32::from(matches!(import.unwrap().1.ty, TypeRef::Func(_)));
                    }
                }
            }
            Payload::ExportSection(s) if depth == 1 => {
                for e in s {
                    let e = e.unwrap();
                    if e.name.ends_with("#abi-version") && e.kind == ExternalKind::Func {
                        index = Some(e.index);
                    }
                }
            }
            Payload::CodeSectionEntry(f) if depth == 1 && index.is_some() => {
                if Some(imported + seen) == index {
                    body = Some(f.range());
                }
                seen += 1;
            }
            _ => {}
        }
    }
    let range = body.expect("the main module's abi-version body");
    let mut bytes = EMBEDDED.to_vec();
    // The body ends `i32.const 4`, `end` (after wit-bindgen's ctor call).
    assert!(bytes[range.clone()].ends_with(&[0x41, 0x05, 0x0b]), "abi-version's body: {:?}", &bytes[range.clone()]);
    bytes[range.end - 3..range.end].copy_from_slice(&tail);
    bytes
}

fn with_abi_version(to: u8) -> Vec<u8> {
    with_abi_version_tail([0x41, to, 0x0b])
}

#[test]
fn an_artifact_whose_abi_version_traps_fails_its_self_test() {
    // `unreachable`, `unreachable`, `end`: a valid body that traps.
    let e = PolicyEngine::from_bytes(&with_abi_version_tail([0x00, 0x00, 0x0b])).err().unwrap();
    assert_eq!(e.code(), "artifact_self_test_failed", "{e}");
    assert!(e.to_string().contains("self-test abi-version(): expected 5, got the policy component trapped"), "{e}");
}

#[test]
fn an_artifact_whose_abi_version_is_not_5_is_refused_naming_it() {
    let e = PolicyEngine::from_bytes(&with_abi_version(4)).err().unwrap();
    assert_eq!(
        e.to_string(),
        "artifact_abi_mismatch: artifact implements webhook:retry-policy@1.0.0 (abi 4); \
         this host speaks webhook:retry-policy@1.0.0 (abi 5)"
    );
    assert!(PolicyEngine::from_bytes(&with_abi_version(5)).is_ok(), "the patch itself changes nothing else");
}
