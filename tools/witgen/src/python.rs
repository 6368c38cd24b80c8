//! Emitter for the Python host (`host-examples/python`, wasmtime-py core API).
//!
//! Writes three files into `OUT_DIR` (the package's `_generated/`):
//!
//! * `types.py` — a `str` enum per WIT enum (values snake_case, the SPEC
//!   spelling), a frozen slots dataclass per WIT record (checked in
//!   `__post_init__` through the package's `_checks`), a dataclass per
//!   variant case whose payload is not a record of its own, and a `Union`
//!   alias per variant. A record used as a `result` error becomes an
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
    Ok(vec![
        Generated {
            path: "__init__.py",
            contents: format!("{}\"\"\"Generated from wit/: types, ABI, adapter.\"\"\"\n", header("#", "python", OUT)),
        },
        Generated { path: "types.py", contents: g.types()? },
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
    /// Lines checking `v` (a field value) in `__post_init__`.
    fn check(&self, t: &Type, v: &str, path: &str, attr: &str, out: &mut Vec<String>) -> Result<()> {
        let set = |e: String| format!("_set(self, {attr:?}, {e})");
        match t {
            Type::Bool => out.push(format!("c.boolean({path:?}, {v})")),
            Type::String => out.push(format!("c.text({path:?}, {v})")),
            Type::F32 | Type::F64 => out.push(set(format!("c.number({path:?}, {v})"))),
            Type::U8 | Type::U16 | Type::U32 | Type::U64 => {
                let bits = self.size(t) * 8;
                out.push(format!("c.uint({path:?}, {v}, {})", (1u128 << bits) - 1));
            }
            Type::Id(id) => match self.kind(*id) {
                TypeDefKind::Enum(_) => {
                    out.push(set(format!("c.enum_member({path:?}, {v}, {})", pascal(&self.name(*id)))))
                }
                TypeDefKind::Record(_) => out.push(format!("c.instance({path:?}, {v}, {})", pascal(&self.name(*id)))),
                TypeDefKind::Variant(var) => {
                    let cls: Vec<String> = var.cases.iter().map(|c| self.case_class(*id, c)).collect();
                    out.push(format!("c.instance({path:?}, {v}, ({},))", cls.join(", ")));
                }
                TypeDefKind::Option(inner) => {
                    let mut sub = Vec::new();
                    self.check(inner, v, path, attr, &mut sub)?;
                    out.push(format!("if {v} is not None:"));
                    out.extend(sub.into_iter().map(|l| format!("    {l}")));
                }
                TypeDefKind::List(inner) => {
                    out.push(set(format!("c.sequence({path:?}, {v})")));
                    let mut sub = Vec::new();
                    self.check(inner, "item", path, "", &mut sub)?;
                    if sub.iter().any(|l| l.starts_with("_set")) {
                        bail!("list elements of {path} need conversion")
                    }
                    out.push(format!("for item in self.{attr}:"));
                    out.extend(sub.into_iter().map(|l| format!("    {l}")));
                }
                k => bail!("field {path}: no Python mirror for {}", k.as_str()),
            },
            _ => bail!("field {path}: unsupported primitive {t:?}"),
        }
        Ok(())
    }

    fn types(&self) -> Result<String> {
        let mut o = header("#", "python", OUT);
        o += "\"\"\"Typed mirrors of the WIT types (webhook:retry-policy): str enums,\nfrozen slots dataclasses checked on construction, variants as unions.\"\"\"\n\n";
        o += "from __future__ import annotations\n\nfrom dataclasses import dataclass\nfrom enum import Enum\nfrom typing import Optional, Union\n\nfrom .. import _checks as c\n\n_set = object.__setattr__\n";
        let (mut enums, mut classes, mut aliases) = (String::new(), String::new(), String::new());
        for &id in &self.types {
            let td = &self.w.resolve.types[id];
            let name = td.name.clone().unwrap_or_default();
            let (cls, d) = (pascal(&name), doc(&td.docs));
            match &td.kind {
                TypeDefKind::Enum(e) => {
                    writeln!(
                        enums,
                        "\n\nclass {cls}(str, Enum):\n    \"\"\"{}\"\"\"\n",
                        if d.is_empty() { name.clone() } else { d }
                    )?;
                    for case in &e.cases {
                        writeln!(
                            enums,
                            "    {} = {:?}",
                            snake(&case.name).trim_end_matches('_').to_uppercase(),
                            case.name.replace('-', "_")
                        )?;
                    }
                }
                TypeDefKind::Record(r) if self.errors.contains(&id) => {
                    let fields: Vec<String> = r.fields.iter().map(|f| snake(&f.name)).collect();
                    let params: Vec<String> = r
                        .fields
                        .iter()
                        .map(|f| {
                            let t = self.py_type(&f.ty);
                            let en = matches!(&f.ty, Type::Id(x) if matches!(self.kind(*x), TypeDefKind::Enum(_)));
                            format!("{}: {}", snake(&f.name), if en { format!("{t} | str") } else { t })
                        })
                        .collect();
                    writeln!(
                        classes,
                        "\n\nclass {cls}(ValueError):\n    \"\"\"{d}\"\"\"\n\n    def __init__(self, {}) -> None:",
                        params.join(", ")
                    )?;
                    for f in &r.fields {
                        let n = snake(&f.name);
                        let conv = match &f.ty {
                            Type::Id(t) if matches!(self.kind(*t), TypeDefKind::Enum(_)) => {
                                format!("{}({n})", pascal(&self.name(*t)))
                            }
                            _ => n.clone(),
                        };
                        writeln!(classes, "        self.{n} = {conv}")?;
                    }
                    let strs: Vec<String> = r
                        .fields
                        .iter()
                        .map(|f| {
                            let n = snake(&f.name);
                            match &f.ty {
                                Type::Id(t) if matches!(self.kind(*t), TypeDefKind::Enum(_)) => {
                                    format!("self.{n}.value")
                                }
                                _ => format!("str(self.{n})"),
                            }
                        })
                        .collect();
                    writeln!(classes, "        super().__init__({})\n\n    def __str__(self) -> str:\n        return \": \".join(x for x in ({},) if x)\n", fields.join(", "), strs.join(", "))?;
                    writeln!(classes, "    def __eq__(self, other: object) -> bool:\n        return isinstance(other, {cls}) and ({},) == ({},)\n", fields.iter().map(|f| format!("self.{f}")).collect::<Vec<_>>().join(", "), fields.iter().map(|f| format!("other.{f}")).collect::<Vec<_>>().join(", "))?;
                    writeln!(
                        classes,
                        "    def __hash__(self) -> int:\n        return hash(({},))\n",
                        fields.iter().map(|f| format!("self.{f}")).collect::<Vec<_>>().join(", ")
                    )?;
                    writeln!(classes, "    def __reduce__(self) -> tuple[type[{cls}], tuple[object, ...]]:\n        return ({cls}, ({},))", fields.iter().map(|f| format!("self.{f}")).collect::<Vec<_>>().join(", "))?;
                }
                TypeDefKind::Record(r) => {
                    writeln!(
                        classes,
                        "\n\n@dataclass(frozen=True, slots=True)\nclass {cls}:\n    \"\"\"{}\"\"\"\n",
                        if d.is_empty() { name.clone() } else { d }
                    )?;
                    let n = r.fields.len();
                    let mut defaults = vec![false; n];
                    for i in (0..n).rev() {
                        let t = &r.fields[i].ty;
                        let opt = matches!(t, Type::Id(x) if matches!(self.kind(*x), TypeDefKind::Option(_)));
                        if opt || *t == Type::Bool {
                            defaults[i] = true
                        } else {
                            break;
                        }
                    }
                    let mut checks = Vec::new();
                    for (i, f) in r.fields.iter().enumerate() {
                        let fd = doc(&f.docs);
                        let dv = if !defaults[i] {
                            String::new()
                        } else if f.ty == Type::Bool {
                            " = False".into()
                        } else {
                            " = None".into()
                        };
                        writeln!(classes, "    {}: {}{dv}\n    \"\"\"{fd}\"\"\"", snake(&f.name), self.py_type(&f.ty))?;
                        self.check(
                            &f.ty,
                            &format!("self.{}", snake(&f.name)),
                            &format!("{}.{}", snake(&name), snake(&f.name)),
                            &snake(&f.name),
                            &mut checks,
                        )?;
                    }
                    writeln!(classes, "\n    def __post_init__(self) -> None:")?;
                    for l in &checks {
                        writeln!(classes, "        {l}")?;
                    }
                }
                TypeDefKind::Variant(v) => {
                    let mut members = Vec::new();
                    for case in &v.cases {
                        let cc = self.case_class(id, case);
                        let own =
                            !matches!(case.ty, Some(Type::Id(t)) if matches!(self.kind(t), TypeDefKind::Record(_)));
                        if own {
                            writeln!(classes, "\n\n@dataclass(frozen=True, slots=True)\nclass {cc}:\n    \"\"\"{} (case `{}` of `{name}`)\"\"\"\n", doc(&case.docs), case.name)?;
                            match &case.ty {
                                None => writeln!(classes, "    def __post_init__(self) -> None:\n        pass")?,
                                Some(t) => {
                                    let fname = self.case_field(id, &case.name);
                                    writeln!(
                                        classes,
                                        "    {fname}: {}\n\n    def __post_init__(self) -> None:",
                                        self.py_type(t)
                                    )?;
                                    let mut checks = Vec::new();
                                    self.check(
                                        t,
                                        &format!("self.{fname}"),
                                        &format!("{}.{fname}", snake(&name)),
                                        fname,
                                        &mut checks,
                                    )?;
                                    for l in &checks {
                                        writeln!(classes, "        {l}")?;
                                    }
                                }
                            }
                        }
                        members.push(cc);
                    }
                    writeln!(aliases, "\n{cls} = Union[{}]\n\"\"\"{d}\"\"\"", members.join(", "))?;
                }
                TypeDefKind::Option(_) | TypeDefKind::List(_) | TypeDefKind::Result(_) => {}
                k => bail!("type {name}: no Python mirror for {}", k.as_str()),
            }
        }
        Ok(o + &enums + &classes + "\n" + &aliases)
    }
}

/// A WIT -> Python code builder for one lowering or lifting level.
#[derive(Default)]
struct Level {
    pre: Vec<String>,
    /// (offset, struct format, python expression)
    leaves: Vec<(usize, String, String)>,
    post: Vec<String>,
}

fn indent(lines: Vec<String>, n: usize) -> Vec<String> {
    lines.iter().flat_map(|l| l.split('\n')).map(|l| format!("{}{l}", " ".repeat(n))).collect()
}

fn fmt_size(f: &str) -> usize {
    match f {
        "?" | "B" | "b" => 1,
        "H" | "h" => 2,
        "I" | "i" | "f" => 4,
        _ => 8,
    }
}

/// Bytes covered by a struct format built by `pack_fmt` (after its `<`).
fn fmt_total(f: &str) -> usize {
    let (mut total, mut num) = (0usize, String::new());
    for ch in f.trim_start_matches('<').chars() {
        if ch.is_ascii_digit() {
            num.push(ch);
            continue;
        }
        let size = if ch == 'x' { 1 } else { fmt_size(&ch.to_string()) };
        total += size * num.parse::<usize>().unwrap_or(1);
        num.clear();
    }
    total
}

fn fmt_of(t: &Type) -> Result<&'static str> {
    Ok(match t {
        Type::Bool => "?",
        Type::U8 => "B",
        Type::S8 => "b",
        Type::U16 => "H",
        Type::S16 => "h",
        Type::U32 => "I",
        Type::S32 => "i",
        Type::U64 => "Q",
        Type::S64 => "q",
        Type::F32 => "f",
        Type::F64 => "d",
        _ => bail!("not a scalar: {t:?}"),
    })
}

impl Gen<'_> {
    /// A struct format for `leaves` (sorted, gaps as pad bytes).
    fn pack_fmt(leaves: &mut [(usize, String, String)]) -> (usize, String) {
        leaves.sort_by_key(|l| l.0);
        let start = leaves.first().map(|l| l.0).unwrap_or(0);
        let (mut f, mut at) = (String::from("<"), start);
        for (off, fm, _) in leaves.iter() {
            if *off > at {
                write!(f, "{}x", off - at).unwrap();
            }
            f += fm;
            at = off + fmt_size(fm);
        }
        (start, f)
    }
    fn emit_level(&self, mut lv: Level, base: &str, structs: &mut Vec<String>) -> Vec<String> {
        let mut out = lv.pre;
        if !lv.leaves.is_empty() {
            let (start, f) = Self::pack_fmt(&mut lv.leaves);
            let name = format!("_S{}", structs.len());
            structs.push(format!("{name} = struct.Struct({f:?})"));
            let vals: Vec<&str> = lv.leaves.iter().map(|l| l.2.as_str()).collect();
            out.push(format!("{name}.pack_into(m, {base} + {start}, {})", vals.join(", ")));
        }
        out.extend(lv.post);
        out
    }
    fn uid(n: &mut usize) -> usize {
        *n += 1;
        *n
    }

    /// Lower value `v` of type `t` into memory at `base + off`.
    #[allow(clippy::too_many_arguments)]
    fn lower(
        &self,
        t: &Type,
        v: &str,
        base: &str,
        off: usize,
        lv: &mut Level,
        n: &mut usize,
        structs: &mut Vec<String>,
    ) -> Result<()> {
        match t {
            Type::String => {
                let k = Self::uid(n);
                lv.pre.extend([
                    format!("_t{k} = {v}.encode()"),
                    format!("_n{k} = len(_t{k})"),
                    format!("if d + _n{k} > lim:\n    raise Grow(d + _n{k})"),
                    format!("m[d:d + _n{k}] = _t{k}"),
                    format!("_p{k} = d"),
                    format!("d += _n{k}"),
                    format!("fx += ({base} + {off}, 1, _n{k})"),
                ]);
                lv.leaves.push((off, "I".into(), format!("_p{k}")));
                lv.leaves.push((off + 4, "I".into(), format!("_n{k}")));
            }
            Type::Id(id) => match self.kind(*id).clone() {
                TypeDefKind::Enum(_) => {
                    lv.leaves.push((off, "B".into(), format!("_IDX_{}[{v}]", snake(&self.name(*id)).to_uppercase())))
                }
                TypeDefKind::Record(r) => {
                    let tys: Vec<Type> = r.fields.iter().map(|f| f.ty).collect();
                    for (f, o) in r.fields.iter().zip(self.offsets(&tys)) {
                        self.lower(&f.ty, &format!("{v}.{}", snake(&f.name)), base, off + o, lv, n, structs)?;
                    }
                }
                TypeDefKind::Option(inner) => {
                    let k = Self::uid(n);
                    let po = self.payload_off(Int::U8, &[Some(inner)]);
                    let mut some = Level::default();
                    some.leaves.push((off, "B".into(), "1".into()));
                    self.lower(&inner, &format!("_o{k}"), base, off + po, &mut some, n, structs)?;
                    lv.post.push(format!("_o{k} = {v}"));
                    lv.post.push(format!("if _o{k} is None:\n    m[{base} + {off}] = 0\nelse:"));
                    lv.post.extend(indent(self.emit_level(some, base, structs), 4));
                }
                TypeDefKind::Variant(var) => {
                    let k = Self::uid(n);
                    let cases: Vec<Option<Type>> = var.cases.iter().map(|c| c.ty).collect();
                    let po = self.payload_off(var.tag(), &cases);
                    if var.cases.len() > 256 {
                        bail!("variant {}: only u8 tags", self.name(*id))
                    }
                    lv.post.push(format!("_v{k} = {v}"));
                    for (i, case) in var.cases.iter().enumerate() {
                        let cls = self.case_class(*id, case);
                        lv.post.push(format!("{} isinstance(_v{k}, {cls}):", if i == 0 { "if" } else { "elif" }));
                        let mut sub = Level::default();
                        sub.leaves.push((off, "B".into(), i.to_string()));
                        if let Some(ct) = &case.ty {
                            let own = !matches!(ct, Type::Id(x) if matches!(self.kind(*x), TypeDefKind::Record(_)));
                            let val = if own {
                                format!("_v{k}.{}", self.case_field(*id, &case.name))
                            } else {
                                format!("_v{k}")
                            };
                            self.lower(ct, &val, base, off + po, &mut sub, n, structs)?;
                        }
                        lv.post.extend(indent(self.emit_level(sub, base, structs), 4));
                    }
                    lv.post.push(format!(
                        "else:\n    raise c.wrong_type({:?}, _v{k}, {:?})",
                        snake(&self.name(*id)),
                        pascal(&self.name(*id))
                    ));
                }
                TypeDefKind::List(inner) => {
                    let k = Self::uid(n);
                    let (es, ea) = (self.size(&inner), self.align(&inner));
                    lv.pre.extend([
                        format!("_l{k} = {v}"),
                        format!("_k{k} = len(_l{k})"),
                        format!("d = (d + {}) & -{ea}", ea - 1),
                        format!("if d + _k{k} * {es} > lim:\n    raise Grow(d + _k{k} * {es})"),
                        format!("_e{k} = d"),
                        format!("d += _k{k} * {es}"),
                    ]);
                    let mut el = Level::default();
                    self.lower(&inner, &format!("_x{k}"), &format!("_b{k}"), 0, &mut el, n, structs)?;
                    lv.pre.push(format!("for _i{k}, _x{k} in enumerate(_l{k}):"));
                    lv.pre.push(format!("    _b{k} = _e{k} + _i{k} * {es}"));
                    lv.pre.extend(indent(self.emit_level(el, &format!("_b{k}"), structs), 4));
                    lv.pre.push(format!("fx += ({base} + {off}, {ea}, _k{k} * {es})"));
                    lv.leaves.push((off, "I".into(), format!("_e{k}")));
                    lv.leaves.push((off + 4, "I".into(), format!("_k{k}")));
                }
                TypeDefKind::Type(t) => self.lower(&t, v, base, off, lv, n, structs)?,
                k => bail!("cannot lower {}", k.as_str()),
            },
            _ => lv.leaves.push((off, fmt_of(t)?.into(), v.into())),
        }
        Ok(())
    }

    /// Flat lowering of a direct param into flat slots starting at `slot`.
    fn lower_flat(
        &self,
        t: &Type,
        v: &str,
        slot: &mut usize,
        lv: &mut Level,
        n: &mut usize,
        structs: &mut Vec<String>,
    ) -> Result<()> {
        let at = FLAT + 8 * *slot;
        match t {
            _ if self.is_ptr_len(t) => {
                let mut sub = Level::default();
                self.lower(t, v, "s", at, &mut sub, n, structs)?;
                lv.pre.extend(sub.pre);
                let (p, l) = (sub.leaves[0].2.clone(), sub.leaves[1].2.clone());
                lv.leaves.push((at, "I4x".into(), p));
                lv.leaves.push((at + 8, "I4x".into(), l));
                *slot += 2;
            }
            Type::Id(id) => match self.kind(*id).clone() {
                TypeDefKind::Enum(_) => {
                    lv.leaves.push((at, "I4x".into(), format!("_IDX_{}[{v}]", snake(&self.name(*id)).to_uppercase())));
                    *slot += 1;
                }
                TypeDefKind::Record(r) => {
                    for f in &r.fields {
                        self.lower_flat(&f.ty, &format!("{v}.{}", snake(&f.name)), slot, lv, n, structs)?;
                    }
                }
                TypeDefKind::Type(t) => self.lower_flat(&t, v, slot, lv, n, structs)?,
                k => bail!("flat params of kind {} are not supported (pass them by pointer)", k.as_str()),
            },
            Type::F32 => {
                lv.leaves.push((at, "f4x".into(), v.into()));
                *slot += 1;
            }
            Type::F64 => {
                lv.leaves.push((at, "d".into(), v.into()));
                *slot += 1;
            }
            Type::U64 | Type::S64 => {
                lv.leaves.push((at, fmt_of(t)?.into(), v.into()));
                *slot += 1;
            }
            _ => {
                let f = if matches!(t, Type::S8 | Type::S16 | Type::S32) { "i4x" } else { "I4x" };
                lv.leaves.push((at, f.into(), v.into()));
                *slot += 1;
            }
        }
        Ok(())
    }
}

/// Lifting and the two ABI files.
impl Gen<'_> {
    fn is_ptr_len(&self, t: &Type) -> bool {
        match t {
            Type::String => true,
            Type::Id(id) => matches!(self.kind(*id), TypeDefKind::List(_)),
            _ => false,
        }
    }
    fn needs_post(&self, t: &Type) -> bool {
        match t {
            Type::String => true,
            Type::Id(id) => match self.kind(*id) {
                TypeDefKind::List(_) => true,
                TypeDefKind::Record(r) => r.fields.iter().any(|f| self.needs_post(&f.ty)),
                TypeDefKind::Variant(v) => v.cases.iter().any(|c| c.ty.as_ref().is_some_and(|t| self.needs_post(t))),
                TypeDefKind::Option(t) | TypeDefKind::Type(t) => self.needs_post(t),
                TypeDefKind::Result(r) => [r.ok, r.err].iter().flatten().any(|t| self.needs_post(t)),
                _ => false,
            },
            _ => false,
        }
    }
    fn scalar_struct(f: &str, structs: &mut Vec<String>) -> String {
        let name = format!("_F_{}", f.replace('?', "bool"));
        let line = format!("{name} = struct.Struct(\"<{f}\")");
        if !structs.contains(&line) {
            structs.push(line)
        }
        name
    }
    /// Statements and the expression lifting a `t` at `base + off`.
    fn lift(
        &self,
        t: &Type,
        base: &str,
        off: usize,
        n: &mut usize,
        s: &mut Vec<String>,
        recs: &mut Vec<TypeId>,
    ) -> Result<(Vec<String>, String)> {
        let at = format!("{base} + {off}");
        Ok(match t {
            Type::String => {
                let k = Self::uid(n);
                (vec![format!("_p{k}, _n{k} = _F_II.unpack_from(m, {at})")], format!("_str(m, _p{k}, _n{k})"))
            }
            Type::Id(id) => match self.kind(*id).clone() {
                TypeDefKind::Enum(e) => {
                    if e.cases.len() > 256 {
                        bail!("u8 enum tags only")
                    }
                    (vec![], format!("_CASES_{}[m[{at}]]", snake(&self.name(*id)).to_uppercase()))
                }
                TypeDefKind::Record(_) => {
                    let id = dealias(self.w, *id);
                    if !recs.contains(&id) {
                        recs.push(id)
                    }
                    (vec![], format!("_lift_{}(m, {at})", snake(&self.name(id))))
                }
                TypeDefKind::List(inner) => {
                    let k = Self::uid(n);
                    let mut lines = vec![format!("_p{k}, _n{k} = _F_II.unpack_from(m, {at})")];
                    let expr = match inner {
                        Type::Id(_) => {
                            let (l, e) =
                                self.lift(&inner, &format!("_p{k} + _i{k} * {}", self.size(&inner)), 0, n, s, recs)?;
                            if !l.is_empty() {
                                bail!("list of non-record ids")
                            }
                            format!("tuple({e} for _i{k} in range(_n{k}))")
                        }
                        Type::String => bail!("list<string> not supported"),
                        _ => {
                            lines.push(format!(
                                "_f{k} = struct.unpack_from(\"<%d{}\" % _n{k}, m, _p{k})",
                                fmt_of(&inner)?
                            ));
                            format!("_f{k}")
                        }
                    };
                    (lines, expr)
                }
                TypeDefKind::Option(inner) => self.lift_cases(
                    &[("none", None, "None".into()), ("some", Some(inner), String::new())],
                    base,
                    off,
                    Int::U8,
                    n,
                    s,
                    recs,
                    false,
                )?,
                TypeDefKind::Result(r) => self.lift_cases(
                    &[
                        ("ok", r.ok, if r.ok.is_none() { "None".into() } else { String::new() }),
                        ("err", r.err, "!raise".into()),
                    ],
                    base,
                    off,
                    Int::U8,
                    n,
                    s,
                    recs,
                    false,
                )?,
                TypeDefKind::Variant(v) => {
                    let cases: Vec<(&str, Option<Type>, String)> = v
                        .cases
                        .iter()
                        .map(|c| {
                            let cls = self.case_class(*id, c);
                            let own =
                                !matches!(c.ty, Some(Type::Id(x)) if matches!(self.kind(x), TypeDefKind::Record(_)));
                            (c.name.as_str(), c.ty, if own { format!("!wrap {cls}") } else { String::new() })
                        })
                        .collect();
                    self.lift_cases(&cases, base, off, v.tag(), n, s, recs, true)?
                }
                TypeDefKind::Type(t) => self.lift(&t, base, off, n, s, recs)?,
                k => bail!("cannot lift {}", k.as_str()),
            },
            _ => {
                let f = fmt_of(t)?;
                (vec![], format!("{}.unpack_from(m, {at})[0]", Self::scalar_struct(f, s)))
            }
        })
    }
    /// A variant-shaped value: `cases` = (name, payload, how): how "" = the
    /// payload itself, "None" = that constant, "!raise" = raise the payload,
    /// "!wrap C" = the payload wrapped in case class C (or C() without one).
    #[allow(clippy::too_many_arguments)]
    fn lift_cases(
        &self,
        cases: &[(&str, Option<Type>, String)],
        base: &str,
        off: usize,
        tag: Int,
        n: &mut usize,
        s: &mut Vec<String>,
        recs: &mut Vec<TypeId>,
        _v: bool,
    ) -> Result<(Vec<String>, String)> {
        if !matches!(tag, Int::U8) {
            bail!("u8 tags only")
        }
        let k = Self::uid(n);
        let tys: Vec<Option<Type>> = cases.iter().map(|c| c.1).collect();
        let po = self.payload_off(tag, &tys);
        let mut lines = vec![format!("_v{k}: Any"), format!("_d{k} = m[{base} + {off}]")];
        for (i, (_, ty, how)) in cases.iter().enumerate() {
            lines.push(format!("{} _d{k} == {i}:", if i == 0 { "if" } else { "elif" }));
            let (mut body, expr) = match ty {
                Some(t) => self.lift(t, base, off + po, n, s, recs)?,
                None => (vec![], String::new()),
            };
            let val = if how == "None" {
                "None".to_string()
            } else if let Some(cls) = how.strip_prefix("!wrap ") {
                format!("{cls}({expr})")
            } else {
                expr
            };
            if how == "!raise" {
                body.push(format!("raise {val}"))
            } else {
                body.push(format!("_v{k} = {val}"))
            }
            lines.extend(indent(body, 4));
        }
        lines.push(format!("else:\n    raise Malformed(\"discriminant %d at %d\" % (_d{k}, {base} + {off}))"));
        Ok((lines, format!("_v{k}")))
    }
    /// A record of scalars, enums and such records (no strings, lists,
    /// options, variants), at offset `off`: its leaves are added to `leaves`
    /// and the expression building it is returned; None for any other type.
    fn static_record(
        &self,
        t: &Type,
        off: usize,
        leaves: &mut Vec<(usize, String, String)>,
        n: &mut usize,
    ) -> Option<String> {
        let Type::Id(id) = t else { return None };
        let id = dealias(self.w, *id);
        let TypeDefKind::Record(r) = self.kind(id).clone() else { return None };
        if self.errors.contains(&id) {
            return None;
        }
        let tys: Vec<Type> = r.fields.iter().map(|f| f.ty).collect();
        let mark = leaves.len();
        let mut args = Vec::new();
        for (t, o) in tys.iter().zip(self.offsets(&tys)) {
            let k = Self::uid(n);
            if let Type::Id(x) = t {
                if let TypeDefKind::Enum(e) = self.kind(*x) {
                    if e.cases.len() <= 256 {
                        leaves.push((off + o, "B".into(), format!("_f{k}")));
                        args.push(format!("_CASES_{}[_f{k}]", snake(&self.name(*x)).to_uppercase()));
                        continue;
                    }
                }
            }
            if let Ok(fm) = fmt_of(t) {
                leaves.push((off + o, fm.into(), format!("_f{k}")));
                args.push(format!("_f{k}"));
            } else if let Some(e) = self.static_record(t, off + o, leaves, n) {
                args.push(e);
            } else {
                leaves.truncate(mark);
                return None;
            }
        }
        Some(format!("_mk_{}({})", snake(&self.name(id)), args.join(", ")))
    }

    /// `_lift_R(m, p)` for record `id`: one unpack for the scalar fields.
    fn lift_record(&self, id: TypeId, n: &mut usize, s: &mut Vec<String>, recs: &mut Vec<TypeId>) -> Result<String> {
        let TypeDefKind::Record(r) = self.kind(id).clone() else { bail!("not a record") };
        let (name, cls) = (snake(&self.name(id)), pascal(&self.name(id)));
        let tys: Vec<Type> = r.fields.iter().map(|f| f.ty).collect();
        let mut leaves = Vec::new();
        let (mut body, mut exprs) = (Vec::new(), Vec::new());
        for ((f, t), o) in r.fields.iter().zip(&tys).zip(self.offsets(&tys)) {
            let k = Self::uid(n);
            let en = matches!(t, Type::Id(x) if matches!(self.kind(*x), TypeDefKind::Enum(_)));
            if en {
                leaves.push((o, "B".to_string(), format!("_f{k}")));
                let Type::Id(x) = t else { unreachable!() };
                exprs.push(format!("_CASES_{}[_f{k}]", snake(&self.name(*x)).to_uppercase()));
            } else if let Ok(fm) = fmt_of(t) {
                leaves.push((o, fm.to_string(), format!("_f{k}")));
                exprs.push(format!("_f{k}"));
            } else if let Some(e) = self.static_record(t, o, &mut leaves, n) {
                exprs.push(e); // a nested record of scalars: its fields join this level's one unpack
            } else {
                let (l, e) = self.lift(t, "p", o, n, s, recs)?;
                body.extend(l);
                exprs.push(e);
            }
            let _ = f;
        }
        let mut out = format!("\n\ndef _lift_{name}(m: memoryview, p: int) -> {cls}:\n");
        if !leaves.is_empty() {
            let (start, fm) = Self::pack_fmt(&mut leaves);
            let sn = format!("_R_{name}");
            s.push(format!("{sn} = struct.Struct({fm:?})"));
            let vars: Vec<&str> = leaves.iter().map(|l| l.2.as_str()).collect();
            writeln!(
                out,
                "    {}{} = {sn}.unpack_from(m, p + {start})",
                vars.join(", "),
                if vars.len() == 1 { "," } else { "" }
            )?;
        }
        for l in body {
            for sub in l.lines() {
                writeln!(out, "    {sub}")?;
            }
        }
        let ctor = if self.errors.contains(&id) { cls.clone() } else { format!("_mk_{name}") };
        writeln!(out, "    return {ctor}({})", exprs.join(", "))?;
        Ok(out)
    }

    fn funcs(&self) -> Vec<&Function> {
        self.w.resolve.interfaces[self.policy].functions.values().collect()
    }
    fn core_name(&self, f: &Function) -> String {
        format!("{}#{}", self.w.resolve.id_of(self.policy).unwrap_or_default(), f.name)
    }

    fn abi(&self) -> Result<String> {
        let mut o = header("#", "python", OUT);
        o += "# mypy: disable-error-code=\"no-any-return\"\n";
        o += "\"\"\"Canonical-ABI lowering and lifting for raw calls into the component's\nmain core module (through `adapter.wat`). Layouts from wit-parser's\nSizeAlign; `lower_F` writes into the scratch block, `lift_F` reads the result.\"\"\"\n\n";
        o += "from __future__ import annotations\n\nimport struct\nfrom collections.abc import Callable\nfrom typing import Any, NamedTuple, Optional, Protocol\n\nfrom .. import _checks as c\nfrom .types import *  # noqa: F403\nfrom .types import (\n";
        let mut names: Vec<String> = self
            .types
            .iter()
            .filter(|id| {
                matches!(self.kind(**id), TypeDefKind::Enum(_) | TypeDefKind::Record(_) | TypeDefKind::Variant(_))
            })
            .map(|id| pascal(&self.name(*id)))
            .collect();
        for id in &self.types {
            if let TypeDefKind::Variant(v) = self.kind(*id) {
                for cs in &v.cases {
                    let c = self.case_class(*id, cs);
                    if !names.contains(&c) {
                        names.push(c)
                    }
                }
            }
        }
        names.sort();
        for nm in &names {
            writeln!(o, "    {nm},")?;
        }
        writeln!(o, ")\n\nFLAT, RESULT, DATA = {FLAT}, {RESULT}, {DATA}\n\"\"\"Scratch block: fixup table (addr, count) @0, 16 flat param slots @FLAT, result @RESULT, data @DATA.\"\"\"\n")?;
        o += "\nclass Scratch(Protocol):\n    mem: memoryview\n    scratch: int\n    limit: int\n\n\nclass Grow(Exception):\n    \"\"\"The scratch block is too small: grow it to hold `need` - scratch bytes and lower again.\"\"\"\n\n    def __init__(self, need: int) -> None:\n        self.need = need\n\n\nclass Malformed(Exception):\n    \"\"\"The guest returned bytes that are not a value of the result type.\"\"\"\n\n\n_new = object.__new__\n_FX: dict[int, struct.Struct] = {}\n";
        let mut structs: Vec<String> = vec![
            "_F_II = struct.Struct(\"<II\")".into(),
            "_HDR = struct.Struct(\"<II\")".into(),
            "_FLAT_PTR = struct.Struct(\"<I\")".into(),
        ];
        let mut helpers = String::new();
        for id in &self.types {
            let nm = snake(&self.name(*id)).to_uppercase();
            match self.kind(*id) {
                TypeDefKind::Enum(e) => {
                    let cls = pascal(&self.name(*id));
                    let cases: Vec<String> = e
                        .cases
                        .iter()
                        .map(|c| format!("{cls}.{}", snake(&c.name).trim_end_matches('_').to_uppercase()))
                        .collect();
                    writeln!(helpers, "_CASES_{nm} = ({},)", cases.join(", "))?;
                    writeln!(helpers, "_IDX_{nm} = {{v: i for i, v in enumerate(_CASES_{nm})}}")?;
                }
                TypeDefKind::Record(r) if !self.errors.contains(id) => {
                    let cls = pascal(&self.name(*id));
                    let fs: Vec<String> = r.fields.iter().map(|f| snake(&f.name)).collect();
                    let args: Vec<String> = (0..fs.len()).map(|i| format!("a{i}: Any")).collect();
                    writeln!(
                        helpers,
                        "_SET_{nm} = tuple({cls}.__dict__[f].__set__ for f in {:?})",
                        fs.iter().map(String::as_str).collect::<Vec<_>>()
                    )?;
                    writeln!(helpers, "\n\ndef _mk_{}({}) -> {cls}:\n    \"\"\"A {cls} from the component's values (checked by the ABI, not again).\"\"\"\n    o = _new({cls})", snake(&self.name(*id)), args.join(", "))?;
                    for i in 0..fs.len() {
                        writeln!(helpers, "    _SET_{nm}[{i}](o, a{i})")?;
                    }
                    writeln!(helpers, "    return o\n\n")?;
                }
                _ => {}
            }
        }
        o += "\n\ndef _str(m: memoryview, p: int, n: int) -> str:\n    if p + n > len(m):\n        raise Malformed(\"string out of bounds\")\n    return str(m[p:p + n], \"utf-8\")\n\n\ndef _finish(m: memoryview, s: int, d: int, lim: int, fx: list[int]) -> None:\n    \"\"\"Write the fixup table (slot, align, size) after the data and its address in the header.\"\"\"\n    d = (d + 3) & -4\n    n = len(fx)\n    if d + 4 * n > lim:\n        raise Grow(d + 4 * n)\n    st = _FX.get(n)\n    if st is None:\n        st = _FX[n] = struct.Struct(\"<%dI\" % n)\n    st.pack_into(m, d, *fx)\n    _HDR.pack_into(m, s, d, n // 3)\n\n\n";
        let mut body = String::new();
        let mut table = String::from("\n\nclass Function(NamedTuple):\n    \"\"\"One export: core names, adapter export names, lowering and lifting.\"\"\"\n\n    name: str\n    core: str\n    post: str | None\n    lower: Callable[..., None]\n    lift: Callable[[memoryview, int], Any]\n    retptr: bool\n\n\nFUNCTIONS: dict[str, Function] = {\n");
        let mut n = 0usize;
        let mut recs: Vec<TypeId> = Vec::new();
        let mut caches: Vec<(String, String)> = Vec::new();
        for f in self.funcs() {
            let sig = self.w.resolve.wasm_signature(AbiVariant::GuestExport, f);
            let fname = snake(&f.name);
            let params: Vec<String> =
                f.params.iter().map(|p| format!("{}: {}", snake(&p.name), self.py_type(&p.ty))).collect();
            writeln!(
                body,
                "\n\ndef lower_{fname}(x: Scratch{}{}) -> None:",
                if params.is_empty() { "" } else { ", " },
                params.join(", ")
            )?;
            let mut lines = vec![
                "m = x.mem".to_string(),
                "s = x.scratch".into(),
                "lim = x.limit".into(),
                "d = s + DATA".into(),
                "fx: list[int] = []".into(),
            ];
            for p in &f.params {
                lines.extend(self.arg_check(&p.ty, &snake(&p.name)));
            }
            let mut lv = Level::default();
            if sig.indirect_params {
                let tys: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
                let info = self.w.sizes.params(tys.iter());
                let (size, al) = (info.size.size_wasm32(), info.align.align_wasm32());
                lines.push(format!("a = (d + {}) & -{al}", al - 1));
                lines.push(format!("d = a + {size}"));
                lines.push("if d > lim:\n    raise Grow(d)".into());
                let mut images = Vec::new();
                for (p, o) in f.params.iter().zip(self.offsets(&tys)) {
                    let v = snake(&p.name);
                    match self.image_of(&p.ty, &mut caches, &mut n, &mut structs)? {
                        // an immutable record of scalars: its bytes are packed once per object
                        Some((cache, size)) => images.push(format!(
                            "_c = _IMG_{cache}.get(id({v}))\nif _c is None or _c[0] is not {v}:\n    _c = _image_{cache}({v})\nm[a + {o}:a + {}] = _c[1]", o + size)),
                        None => self.lower(&p.ty, &v, "a", o, &mut lv, &mut n, &mut structs)?,
                    }
                }
                let post = std::mem::take(&mut lv.post);
                lines.extend(self.emit_level(lv, "a", &mut structs));
                lines.extend(images);
                lines.extend(post);
                lines.push("_FLAT_PTR.pack_into(m, s + FLAT, a)".into());
                lines.push(format!("fx += (s + FLAT, {al}, {size})"));
            } else {
                let mut slot = 0;
                for p in &f.params {
                    self.lower_flat(&p.ty, &snake(&p.name), &mut slot, &mut lv, &mut n, &mut structs)?;
                }
                if slot != sig.params.len() {
                    bail!("{}: flat params {} != {}", f.name, slot, sig.params.len())
                }
                for l in lv.leaves.iter_mut() {
                    l.0 -= FLAT;
                }
                lines.extend(self.emit_level(lv, "s + FLAT", &mut structs));
            }
            lines.push("_finish(m, s, d, lim, fx)".into());
            for l in lines {
                for sub in l.lines() {
                    writeln!(body, "    {sub}")?;
                }
            }
            let rt = f.result.as_ref().map(|t| self.result_py(t)).unwrap_or_else(|| "None".into());
            writeln!(body, "\n\ndef lift_{fname}(m: memoryview, r: int) -> {rt}:")?;
            match &f.result {
                None => writeln!(body, "    return None")?,
                Some(t) if sig.retptr => {
                    let (l, e) = self.lift(t, "r", 0, &mut n, &mut structs, &mut recs)?;
                    for x in l {
                        for sub in x.lines() {
                            writeln!(body, "    {sub}")?;
                        }
                    }
                    writeln!(body, "    return {e}")?;
                }
                Some(t) => {
                    let e = match (t, sig.results.first()) {
                        (Type::Id(id), Some(WasmType::I32)) if matches!(self.kind(*id), TypeDefKind::Enum(_)) => {
                            format!("_CASES_{}[_F_I.unpack_from(m, r)[0]]", snake(&self.name(*id)).to_uppercase())
                        }
                        (Type::Bool, _) => "_F_I.unpack_from(m, r)[0] != 0".into(),
                        (t, Some(w)) => {
                            let fm = match w {
                                WasmType::I64 | WasmType::PointerOrI64 => "Q",
                                WasmType::F32 => "f",
                                WasmType::F64 => "d",
                                _ => "I",
                            };
                            let _ = fmt_of(t)?;
                            format!("{}.unpack_from(m, r)[0]", Self::scalar_struct(fm, &mut structs))
                        }
                        _ => bail!("{}: unsupported direct result", f.name),
                    };
                    Self::scalar_struct("I", &mut structs);
                    writeln!(body, "    return {e}")?;
                }
            }
            let post = f.result.as_ref().is_some_and(|t| self.needs_post(t));
            writeln!(
                table,
                "    {:?}: Function({:?}, {:?}, {}, lower_{fname}, lift_{fname}, {}),",
                f.name,
                f.name,
                self.core_name(f),
                if post { format!("{:?}", format!("cabi_post_{}", self.core_name(f))) } else { "None".into() },
                if sig.retptr { "True" } else { "False" }
            )?;
        }
        table += "}\n";
        let mut lifts = String::new();
        let mut i = 0;
        while i < recs.len() {
            let id = recs[i];
            lifts += &self.lift_record(id, &mut n, &mut structs, &mut recs)?;
            i += 1;
        }
        let images: String = caches.iter().map(|(_, code)| code.as_str()).collect();
        Ok(o + &structs.join("\n") + "\n" + &helpers + &images + &lifts + &body + &table)
    }
    /// For a param that is a record of scalars only (frozen, so its image
    /// never changes): the name of a per-object image cache (emitted once
    /// into `caches`) and the image size; None for any other type.
    fn image_of(
        &self,
        t: &Type,
        caches: &mut Vec<(String, String)>,
        n: &mut usize,
        structs: &mut Vec<String>,
    ) -> Result<Option<(String, usize)>> {
        let mut probe = Vec::new();
        if self.static_record(t, 0, &mut probe, n).is_none() {
            return Ok(None);
        }
        let Type::Id(id) = t else { return Ok(None) };
        let (name, cls, size) = (snake(&self.name(*id)).to_uppercase(), pascal(&self.name(*id)), self.size(t));
        if !caches.iter().any(|c| c.0 == name) {
            let mut lv = Level::default();
            self.lower(t, "v", "0", 0, &mut lv, n, structs)?;
            let (start, f) = Self::pack_fmt(&mut lv.leaves);
            let vals: Vec<&str> = lv.leaves.iter().map(|l| l.2.as_str()).collect();
            let pad = size - start - fmt_total(&f);
            let code = format!("\n\n_IMG_{name}: dict[int, tuple[{cls}, bytes]] = {{}}\n_IMG_{name}_S = struct.Struct({:?})\n\n\ndef _image_{name}(v: {cls}) -> tuple[{cls}, bytes]:\n    \"\"\"The canonical-ABI image of a (frozen) {cls}, cached per object.\"\"\"\n    if len(_IMG_{name}) >= 1024:\n        _IMG_{name}.clear()\n    img = _IMG_{name}[id(v)] = (v, _IMG_{name}_S.pack({}))\n    return img\n", format!("{f}{}", if pad > 0 { format!("{pad}x") } else { String::new() }), vals.join(", "));
            caches.push((name.clone(), code));
        }
        Ok(Some((name, size)))
    }

    fn result_py(&self, t: &Type) -> String {
        if let Type::Id(id) = t {
            if let TypeDefKind::Result(r) = self.kind(*id) {
                return r.ok.as_ref().map(|t| self.py_type(t)).unwrap_or_else(|| "None".into());
            }
        }
        self.py_type(t)
    }
    /// Cheap top-level checks of one argument (records were checked when built).
    fn arg_check(&self, t: &Type, v: &str) -> Vec<String> {
        match t {
            Type::Bool => vec![format!("c.boolean({v:?}, {v})")],
            Type::String => vec![format!("if {v}.__class__ is not str:\n    c.text({v:?}, {v})")],
            Type::F32 | Type::F64 => vec![format!("{v} = c.number({v:?}, {v})")],
            Type::U8 | Type::U16 | Type::U32 | Type::U64 => {
                let max = (1u128 << (self.size(t) * 8)) - 1;
                vec![format!("if {v}.__class__ is not int or not 0 <= {v} <= {max}:\n    c.uint({v:?}, {v}, {max})")]
            }
            Type::Id(id) => match self.kind(*id) {
                TypeDefKind::Record(_) => {
                    let cls = pascal(&self.name(*id));
                    vec![format!("if not isinstance({v}, {cls}):\n    raise c.wrong_type({v:?}, {v}, {cls:?})")]
                }
                TypeDefKind::Enum(_) => vec![format!("{v} = c.enum_member({v:?}, {v}, {})", pascal(&self.name(*id)))],
                _ => vec![],
            },
            _ => vec![],
        }
    }

    fn adapter(&self) -> Result<String> {
        let mut o = header(";;", "python", OUT);
        o += ";; Per export F: run the previous call's pending cabi_post (deferred until now:\n;; the host has lifted that result, and the guest sees post-return before its\n;; next export call), copy each fixup (slot, align, size) of the scratch block\n;; into a fresh cabi_realloc block (the callee owns and frees it), call the core\n;; export with the flat params of the scratch block, store its result, and note\n;; F's cabi_post as pending. No policy.\n(module\n  (import \"core\" \"memory\" (memory 0))\n  (import \"core\" \"cabi_realloc\" (func $realloc (param i32 i32 i32 i32) (result i32)))\n";
        let wt = |w: &WasmType| match w {
            WasmType::I64 | WasmType::PointerOrI64 => "i64",
            WasmType::F32 => "f32",
            WasmType::F64 => "f64",
            _ => "i32",
        };
        let (mut funcs, mut posts) = (String::new(), Vec::new());
        for (i, f) in self.funcs().into_iter().enumerate() {
            let sig = self.w.resolve.wasm_signature(AbiVariant::GuestExport, f);
            let ps: Vec<&str> = sig.params.iter().map(wt).collect();
            let rs: Vec<&str> = sig.results.iter().map(wt).collect();
            writeln!(
                o,
                "  (import \"core\" {:?} (func $f{i}{}{}))",
                self.core_name(f),
                if ps.is_empty() { String::new() } else { format!(" (param {})", ps.join(" ")) },
                if rs.is_empty() { String::new() } else { format!(" (result {})", rs.join(" ")) }
            )?;
            let loads: Vec<String> = ps
                .iter()
                .enumerate()
                .map(|(j, t)| format!("({t}.load offset={} (global.get $s))", FLAT + 8 * j))
                .collect();
            let call = format!("(call $f{i} {})", loads.join(" "));
            let stmt = match rs.first() {
                Some(t) => format!("({t}.store offset={RESULT} (global.get $s) {call})"),
                None => call,
            };
            let mut pend = String::new();
            if f.result.as_ref().is_some_and(|t| self.needs_post(t)) {
                writeln!(
                    o,
                    "  (import \"core\" {:?} (func $p{i} (param i32)))",
                    format!("cabi_post_{}", self.core_name(f))
                )?;
                posts.push(format!("$p{i}"));
                pend = format!("\n    (global.set $pending_arg (i32.load offset={RESULT} (global.get $s))) (global.set $pending (i32.const {}))", posts.len());
            }
            writeln!(funcs, "  (func (export {:?}) (call $flush) (call $fixups)\n    {stmt}{pend})", f.name)?;
        }
        writeln!(o, "  (type $post (func (param i32)))\n  (table $posts {} funcref)\n  (elem (table $posts) (i32.const 0) func {})", posts.len(), posts.join(" "))?;
        o += "  (global $s (export \"scratch\") (mut i32) (i32.const 0))\n  ;; 1 + the table index of the cabi_post still owed for the last result (0: none), and its argument\n  (global $pending (mut i32) (i32.const 0))\n  (global $pending_arg (mut i32) (i32.const 0))\n";
        o += "  (func $flush (export \"flush\") (local $k i32)\n    (local.set $k (global.get $pending))\n    (if (local.get $k) (then\n      (global.set $pending (i32.const 0))\n      (call_indirect $posts (type $post) (global.get $pending_arg) (i32.sub (local.get $k) (i32.const 1))))))\n";
        o += "  (func $fixups (local $t i32) (local $end i32) (local $q i32)\n    (local.set $t (i32.load (global.get $s)))\n    (local.set $end (i32.add (local.get $t) (i32.mul (i32.load offset=4 (global.get $s)) (i32.const 12))))\n    (block $done (loop $next\n      (br_if $done (i32.ge_u (local.get $t) (local.get $end)))\n      (local.set $q (call $realloc (i32.const 0) (i32.const 0) (i32.load offset=4 (local.get $t)) (i32.load offset=8 (local.get $t))))\n      (if (i32.eqz (local.get $q)) (then unreachable))\n      (memory.copy (local.get $q) (i32.load (i32.load (local.get $t))) (i32.load offset=8 (local.get $t)))\n      (i32.store (i32.load (local.get $t)) (local.get $q))\n      (local.set $t (i32.add (local.get $t) (i32.const 12)))\n      (br $next))))\n";
        writeln!(o, "  ;; the host's import-time self-test: a raw call that writes a known value\n  (func (export \"probe\") (call $flush) (i32.store offset={RESULT} (global.get $s) (i32.const 0x5eed)))")?;
        Ok(o + &funcs + ")\n")
    }
}
