//! The one component-file reader: find the component's main core module
//! (the one that exports `cabi_realloc` and the policy's functions).
//! Go (wazero) and Python (wasmtime-py raw calls) embed that module; they
//! never parse a component file themselves.

use anyhow::{bail, Context, Result};
use wasmparser::{Parser, Payload};

/// The bytes of the core module that exports `cabi_realloc`.
pub fn main_module(component: &[u8]) -> Result<Vec<u8>> {
    for payload in Parser::new(0).parse_all(component) {
        if let Payload::ModuleSection { unchecked_range, .. } = payload? {
            let (start, end) = (usize::try_from(unchecked_range.start)?, usize::try_from(unchecked_range.end)?);
            let module = component.get(start..end).context("a module section outside the component file")?;
            if exports_realloc(module)? {
                return Ok(module.to_vec());
            }
        }
    }
    bail!("no core module exporting cabi_realloc in this component")
}

fn exports_realloc(module: &[u8]) -> Result<bool> {
    for payload in Parser::new(0).parse_all(module) {
        if let Payload::ExportSection(reader) = payload? {
            for export in reader {
                if export?.name == "cabi_realloc" {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}
