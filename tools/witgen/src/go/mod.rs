//! Emitter for the Go host (wazero, no cgo): the WIT types as Go types, and
//! the canonical-ABI glue for calling the component's main core module
//! directly: every export of the world (flat params up to 16 values, else a
//! params tuple in memory through `cabi_realloc`; results flat or through
//! the return area, then `cabi_post_*`), and every import as a wazero host
//! function. Layouts come from `SizeAlign`, flat shapes from
//! `Resolve::push_flat` / `wasm_signature`, so they follow the canonical ABI
//! by construction; nothing here knows an offset.
//!
//! The generated code relies on a small hand-written runtime in the Go
//! package (`abi_runtime.go`: `abi`, `instance`, `lowerError`, `abiError`).
//! Shapes outside what the WIT uses (flags, tuples, resources, nested
//! results, signed or char scalars in variants) are refused, not guessed.

use std::collections::{BTreeSet, VecDeque};
use std::fmt::Write as _;

use anyhow::{bail, Result};
use wit_parser::abi::{AbiVariant, FlatTypes, WasmType};
use wit_parser::{Docs, Function, Int, Resolve, Type, TypeDefKind, TypeId, WorldItem};

use crate::wit::{header, Wit};
use crate::Generated;

mod abi;
mod flat;
mod imports;
mod memory;
mod types;

use abi::{addr, at, leave, tag_get, tag_put};
use flat::value_type;

const OUT: &str = "host-examples/go/retrypolicy";

pub fn emit(wit: &Wit) -> Result<Vec<Generated>> {
    let mut g = Gen { wit, r: &wit.resolve, queue: VecDeque::new(), seen: BTreeSet::new(), tmp: 0, in_call: false };
    let types = g.types_file()?;
    let abi = g.abi_file()?;
    Ok(vec![
        Generated { path: "zz_generated_types.go", contents: types },
        Generated { path: "zz_generated_abi.go", contents: abi },
    ])
}

/// One generated helper: how a named type crosses the boundary.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    Store,    // Go value -> bytes of guest memory (params area, list element, import result)
    Lift,     // bytes of guest memory -> Go value (return area, list element)
    Flat,     // Go value -> flat core values (export params)
    LiftFlat, // flat core values -> Go value (import params)
}

struct Gen<'a> {
    wit: &'a Wit,
    r: &'a Resolve,
    queue: VecDeque<(TypeId, Mode)>,
    seen: BTreeSet<(TypeId, Mode)>,
    tmp: usize,
    in_call: bool,
}

// ---- names ----

const INITIALISMS: &[&str] = &["id", "http", "abi", "json", "url", "ip"];
const KEYWORDS: &[&str] = &["type", "func", "range", "map", "chan", "go", "select", "default", "var", "const"];

fn pascal(name: &str) -> String {
    name.split('-')
        .map(|p| if INITIALISMS.contains(&p) { p.to_uppercase() } else { p[..1].to_uppercase() + &p[1..] })
        .collect()
}

fn camel(name: &str) -> String {
    let mut parts = name.split('-');
    let first = parts.next().unwrap_or_default().to_string();
    let rest: String = parts.map(pascal).collect();
    let s = first + &rest;
    if KEYWORDS.contains(&s.as_str()) {
        s + "_"
    } else {
        s
    }
}

fn snake(name: &str) -> String {
    name.replace('-', "_")
}

fn doc(out: &mut String, indent: &str, docs: &Docs, fallback: &str) {
    match &docs.contents {
        Some(text) => {
            for line in text.trim_end().lines() {
                let _ = writeln!(out, "{indent}//{}{}", if line.is_empty() { "" } else { " " }, line);
            }
        }
        None if !fallback.is_empty() => {
            let _ = writeln!(out, "{indent}// {fallback}");
        }
        None => {}
    }
}

impl<'a> Gen<'a> {
    fn tmp(&mut self) -> usize {
        self.tmp += 1;
        self.tmp
    }

    /// Follows `use` aliases to the defining type.
    fn dealias(&self, ty: &Type) -> Type {
        let mut ty = *ty;
        while let Type::Id(id) = ty {
            match &self.r.types[id].kind {
                TypeDefKind::Type(t) => ty = *t,
                _ => break,
            }
        }
        ty
    }

    fn size(&self, ty: &Type) -> usize {
        self.wit.sizes.size(ty).size_wasm32()
    }

    fn align(&self, ty: &Type) -> usize {
        self.wit.sizes.align(ty).align_wasm32()
    }

    fn flat(&self, ty: &Type) -> Vec<WasmType> {
        let mut storage = [WasmType::I32; 64];
        let mut f = FlatTypes::new(&mut storage);
        assert!(self.r.push_flat(ty, &mut f), "flat shape of more than 64 values");
        f.to_vec()
    }

    fn named(&self, id: TypeId) -> String {
        pascal(self.r.types[id].name.as_deref().unwrap_or("anonymous"))
    }

    /// The Go type of a WIT type.
    fn go_type(&self, ty: &Type) -> Result<String> {
        Ok(match self.dealias(ty) {
            Type::Bool => "bool".into(),
            Type::U8 => "uint8".into(),
            Type::U16 => "uint16".into(),
            Type::U32 => "uint32".into(),
            Type::U64 => "uint64".into(),
            Type::S8 => "int8".into(),
            Type::S16 => "int16".into(),
            Type::S32 => "int32".into(),
            Type::S64 => "int64".into(),
            Type::F32 => "float32".into(),
            Type::F64 => "float64".into(),
            Type::String => "string".into(),
            Type::Id(id) => match &self.r.types[id].kind {
                TypeDefKind::Record(_) | TypeDefKind::Variant(_) | TypeDefKind::Enum(_) => self.named(id),
                TypeDefKind::List(t) => format!("[]{}", self.go_type(t)?),
                TypeDefKind::Option(t) => format!("*{}", self.go_type(t)?),
                other => bail!("go: unsupported WIT type {other:?}"),
            },
            other => bail!("go: unsupported WIT type {other:?}"),
        })
    }

    fn need(&mut self, id: TypeId, mode: Mode) {
        if self.seen.insert((id, mode)) {
            self.queue.push_back((id, mode));
        }
    }
}
