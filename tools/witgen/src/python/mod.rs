//! Emitter for the Python host (`host-examples/python`, wasmtime-py core API).
//!
//! Writes three files into `OUT_DIR` (the package's `_generated/`):
//!
//! * `types.py` — a `str` enum per WIT enum (values snake_case, the SPEC
//!   spelling), a frozen slotted class per WIT record (not a dataclass:
//!   checked in `__init__` through the package's `_checks`; see `types`), a
//!   class per variant case whose payload is not a record of its own, and a
//!   `Union` alias per variant. A record used as a `result` error becomes an
//!   exception class.
//! * `abi.py` — per exported function of the `policy` interface: `lower_F`
//!   writes the canonical-ABI image of the arguments into the instance's
//!   scratch block (one precomputed `struct.Struct` per record level; flat
//!   params when the signature has <= 16 flat values, else one params record
//!   passed by pointer) plus the ownership "fixups" (each string / list /
//!   params record the callee will own and free); `lift_F` reads the result
//!   from the return area (or the flat result slot) into the typed values.
//! * `adapter.wat` — per function, a zero-argument core function that
//!   copies every fixup into a fresh `cabi_realloc` block, calls the core
//!   export with the flat params from the scratch block, and stores its
//!   result; `cabi_post_F` (when the result owns memory) is deferred to the
//!   start of the next call on that instance, after the host lifted the
//!   result. ONE host->wasm call per operation.
//!
//! Layouts come only from `SizeAlign` and `Resolve::wasm_signature`.
//!
//! Modules: this one (shared helpers, `Gen`), `types` (`types.py`), `lower`
//! (struct formats, argument images), `lift` (results), `adapter` (`abi.py`
//! and `adapter.wat`).

use std::fmt::Write as _;

use anyhow::{bail, Context, Result};
use wit_parser::abi::{AbiVariant, WasmType};
use wit_parser::{Function, Int, InterfaceId, Type, TypeDefKind, TypeId, WorldItem};

use crate::wit::{header, Wit};
use crate::Generated;

const OUT: &str = "host-examples/python/src/webhook_retry_policy/_generated";
/// Scratch block header (see `adapter.wat`): fixup table address and count,
/// 16 flat-param slots of 8 bytes, the result slot, then the data area.
const FLAT: usize = 8;
const RESULT: usize = 136;
const DATA: usize = 144;
/// Field names for variant cases whose payload is not a record (naming only).
const CASE_FIELDS: &[(&str, &str, &str)] = &[("attempt-outcome", "transport-error", "kind")];
const KEYWORDS: &[&str] =
    &["class", "from", "import", "global", "in", "is", "not", "or", "and", "def", "return", "type"];

pub fn emit(wit: &Wit) -> Result<Vec<Generated>> {
    let g = Gen::new(wit)?;
    let (types, errors) = g.types()?;
    Ok(vec![
        Generated {
            path: "__init__.py",
            contents: format!(
                "{}\"\"\"Generated from wit/: types, errors, ABI and imports, adapter.\"\"\"\n",
                header("#", "python", OUT)
            ),
        },
        Generated { path: "errors.py", contents: errors },
        Generated { path: "types.py", contents: types },
        Generated { path: "abi.py", contents: g.abi()? },
        Generated { path: "adapter.wat", contents: g.adapter()? },
    ])
}

fn dealias(w: &Wit, mut id: TypeId) -> TypeId {
    while let TypeDefKind::Type(Type::Id(next)) = w.resolve.types[id].kind {
        id = next
    }
    id
}

fn pascal(s: &str) -> String {
    s.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}
fn snake(s: &str) -> String {
    let n = s.replace('-', "_");
    if KEYWORDS.contains(&n.as_str()) {
        format!("{n}_")
    } else {
        n
    }
}
fn doc(d: &wit_parser::Docs) -> String {
    d.contents
        .as_deref()
        .unwrap_or("")
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .replace('\\', "\\\\")
        .replace("\"\"\"", "'''")
}

struct Gen<'a> {
    w: &'a Wit,
    types: Vec<TypeId>,
    policy: InterfaceId,
    errors: Vec<TypeId>,
}

impl<'a> Gen<'a> {
    fn new(w: &'a Wit) -> Result<Gen<'a>> {
        let world = &w.resolve.worlds[w.world];
        let mut policy = None;
        for item in world.exports.values() {
            if let WorldItem::Interface { id, .. } = item {
                if w.resolve.interfaces[*id].name.as_deref() == Some("policy") {
                    policy = Some(*id)
                }
            }
        }
        let policy = policy.context("the world exports no `policy` interface")?;
        let mut types = Vec::new();
        for (_, iface) in w.resolve.interfaces.iter() {
            for id in iface.types.values() {
                if !matches!(w.resolve.types[*id].kind, TypeDefKind::Type(_)) {
                    types.push(*id)
                }
            }
        }
        let mut errors = Vec::new();
        for f in w.resolve.interfaces[policy].functions.values() {
            if let Some(Type::Id(id)) = f.result {
                if let TypeDefKind::Result(r) = &w.resolve.types[id].kind {
                    if let Some(Type::Id(e)) = r.err {
                        let e = dealias(w, e);
                        if !errors.contains(&e) {
                            errors.push(e)
                        }
                    }
                }
            }
        }
        Ok(Gen { w, types, policy, errors })
    }
    fn kind(&self, id: TypeId) -> &TypeDefKind {
        &self.w.resolve.types[dealias(self.w, id)].kind
    }
    fn name(&self, id: TypeId) -> String {
        self.w.resolve.types[dealias(self.w, id)].name.clone().unwrap_or_default()
    }
    fn size(&self, t: &Type) -> usize {
        self.w.sizes.size(t).size_wasm32()
    }
    fn align(&self, t: &Type) -> usize {
        self.w.sizes.align(t).align_wasm32()
    }
    fn offsets(&self, ts: &[Type]) -> Vec<usize> {
        self.w.sizes.field_offsets(ts.iter()).iter().map(|(o, _)| o.size_wasm32()).collect()
    }
    fn payload_off(&self, tag: Int, cases: &[Option<Type>]) -> usize {
        self.w.sizes.payload_offset(tag, cases.iter().map(|c| c.as_ref())).size_wasm32()
    }

    /// The Python class a variant case lifts to / lowers from.
    fn case_class(&self, vid: TypeId, case: &wit_parser::Case) -> String {
        match case.ty {
            Some(Type::Id(id)) if matches!(self.kind(id), TypeDefKind::Record(_)) => pascal(&self.name(id)),
            _ => {
                let _ = vid;
                pascal(&case.name)
            }
        }
    }
    fn case_field(&self, vid: TypeId, case: &str) -> &'static str {
        let v = self.name(vid);
        CASE_FIELDS.iter().find(|(a, b, _)| *a == v && *b == case).map(|x| x.2).unwrap_or("value")
    }
    fn py_type(&self, t: &Type) -> String {
        match t {
            Type::Bool => "bool".into(),
            Type::String | Type::Char => "str".into(),
            Type::F32 | Type::F64 => "float".into(),
            Type::Id(id) => match self.kind(*id) {
                TypeDefKind::Option(t) => format!("Optional[{}]", self.py_type(t)),
                TypeDefKind::List(t) => format!("tuple[{}, ...]", self.py_type(t)),
                _ => pascal(&self.name(*id)),
            },
            _ => "int".into(),
        }
    }
}

mod adapter;
mod imports;
mod lift;
mod lower;
mod types;
