//! The artifact's container (`docs/artifact.md`, step 3): the top-level
//! sections of a component, read with `wasmparser`; the two custom sections
//! by name; the main core module (the one exporting `cabi_realloc`); and the
//! document section written back with `wasm-encoder` (`bundle`).

use std::ops::Range;

use wasmparser::{Encoding, Parser, Payload};

use super::ArtifactError;

/// Build provenance, written by `scripts/build-component`.
pub const BUILD_SECTION: &str = "webhook-retry-policy:build";
/// A policy document (JSON text), written by `retry-policy bundle`.
pub const DOCUMENT_SECTION: &str = "webhook-retry-policy:document";

/// What the walk found.
#[derive(Debug, Default)]
pub struct Container<'a> {
    /// `webhook-retry-policy:build`'s bytes.
    pub build: Option<&'a [u8]>,
    /// `webhook-retry-policy:document`'s bytes.
    pub document: Option<&'a [u8]>,
    /// The component's top-level export names, in order.
    pub exports: Vec<String>,
    /// Every top-level section: id and body range (for rewriting).
    sections: Vec<(u8, Range<usize>, Option<&'a str>)>,
}

/// Lowercase hex sha256 of `bytes`: policy-core's, which the rollout's key
/// ids and canary buckets use too.
pub use retry_policy_core::rollout::sha256_hex;

enum Nest {
    Module { exports_realloc: bool },
    Component,
}

/// Walk `bytes`: a component's header, every top-level section to the end,
/// the custom sections by name (at most one of each of ours), and exactly
/// one core module exporting `cabi_realloc`.
pub fn parse(bytes: &[u8]) -> Result<Container<'_>, ArtifactError> {
    let mut out = Container::default();
    let mut stack: Vec<Nest> = Vec::new();
    let mut main_modules = 0usize;
    let mut saw_header = false;
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(|e| ArtifactError::invalid(e.message().to_string(), Some(e.offset())))?;
        if stack.is_empty() {
            match &payload {
                Payload::Version { encoding, range, .. } => {
                    if *encoding != Encoding::Component {
                        return Err(ArtifactError::invalid(
                            "a core WebAssembly module, not a component (header layer 00 00, expected 01 00)",
                            Some(range.start),
                        ));
                    }
                    saw_header = true;
                    continue;
                }
                Payload::End(_) => break,
                Payload::CustomSection(c) => {
                    let slot = match c.name() {
                        BUILD_SECTION => Some(&mut out.build),
                        DOCUMENT_SECTION => Some(&mut out.document),
                        _ => None,
                    };
                    if let Some(slot) = slot {
                        if slot.replace(c.data()).is_some() {
                            return Err(ArtifactError::invalid(
                                format!("a second `{}` custom section", c.name()),
                                Some(c.range().start),
                            ));
                        }
                    }
                }
                Payload::ComponentExportSection(s) => {
                    for e in s.clone() {
                        let e = e.map_err(|e| ArtifactError::invalid(e.message().to_string(), Some(e.offset())))?;
                        out.exports.push(e.name.name.to_string());
                    }
                }
                _ => {}
            }
            if let Some((id, range)) = payload.as_section() {
                let custom = match &payload {
                    Payload::CustomSection(c) => Some(c.name()),
                    _ => None,
                };
                out.sections.push((id, range, custom));
            }
        }
        match payload {
            Payload::ModuleSection { .. } => stack.push(Nest::Module { exports_realloc: false }),
            Payload::ComponentSection { .. } => stack.push(Nest::Component),
            Payload::ExportSection(s) if stack.len() == 1 => {
                if let Some(Nest::Module { exports_realloc }) = stack.last_mut() {
                    for e in s {
                        let e = e.map_err(|e| ArtifactError::invalid(e.message().to_string(), Some(e.offset())))?;
                        *exports_realloc |= e.name == "cabi_realloc";
                    }
                }
            }
            Payload::End(_) => {
                if let Some(Nest::Module { exports_realloc: true }) = stack.pop() {
                    if stack.is_empty() {
                        main_modules += 1;
                    }
                }
            }
            _ => {}
        }
    }
    if !saw_header {
        return Err(ArtifactError::invalid("empty file: no WebAssembly header", Some(0)));
    }
    match main_modules {
        1 => Ok(out),
        0 => Err(ArtifactError::invalid("no core module exports `cabi_realloc` (no main module)", None)),
        n => Err(ArtifactError::invalid(format!("{n} core modules export `cabi_realloc`, expected one"), None)),
    }
}

impl Container<'_> {
    /// The component's bytes with `document` as its only
    /// `webhook-retry-policy:document` section (every other section copied
    /// as it is, in order; the document last).
    pub fn with_document(&self, bytes: &[u8], document: &str) -> Vec<u8> {
        self.encode(bytes, Some(document))
    }

    /// The component's bytes re-encoded section by section, unchanged.
    pub fn reencoded(&self, bytes: &[u8]) -> Vec<u8> {
        self.encode(bytes, None)
    }

    /// Every section copied (with `document`: but ours, then `document` last).
    fn encode(&self, bytes: &[u8], document: Option<&str>) -> Vec<u8> {
        let mut component = wasm_encoder::Component::new();
        for (id, range, custom) in &self.sections {
            if document.is_none() || *custom != Some(DOCUMENT_SECTION) {
                component.section(&wasm_encoder::RawSection { id: *id, data: &bytes[range.clone()] });
            }
        }
        if let Some(d) = document {
            component
                .section(&wasm_encoder::CustomSection { name: DOCUMENT_SECTION.into(), data: d.as_bytes().into() });
        }
        component.finish()
    }
}
