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

    // ---- the types file ----

    fn types_file(&mut self) -> Result<String> {
        let mut out = header("//", "go", OUT);
        out.push_str("\npackage retrypolicy\n\nimport (\n\t\"fmt\"\n\t\"strconv\"\n)\n");
        for id in self.world_type_ids() {
            let def = &self.r.types[id];
            let name = self.named(id);
            out.push('\n');
            match &def.kind {
                TypeDefKind::Record(rec) => {
                    doc(
                        &mut out,
                        "",
                        &def.docs,
                        &format!("{name} is the WIT record `{}`.", def.name.as_deref().unwrap_or("")),
                    );
                    let _ = writeln!(out, "type {name} struct {{");
                    for (i, f) in rec.fields.iter().enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        doc(&mut out, "\t", &f.docs, "");
                        let omit = if matches!(self.dealias(&f.ty), Type::Id(t) if matches!(self.r.types[t].kind, TypeDefKind::Option(_)))
                        {
                            ",omitempty"
                        } else {
                            ""
                        };
                        let _ = writeln!(
                            out,
                            "\t{} {} `json:\"{}{omit}\"`",
                            pascal(&f.name),
                            self.go_type(&f.ty)?,
                            snake(&f.name)
                        );
                    }
                    out.push_str("}\n");
                }
                TypeDefKind::Variant(v) => {
                    doc(&mut out, "", &def.docs, "");
                    let cases: Vec<String> = v.cases.iter().map(|c| pascal(&c.name)).collect();
                    let _ = writeln!(
                        out,
                        "//\n// Exactly one of {} is set (WIT variant `{}`).",
                        cases.join(", "),
                        def.name.as_deref().unwrap_or("")
                    );
                    let _ = writeln!(out, "type {name} struct {{");
                    for (i, c) in v.cases.iter().enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        doc(&mut out, "\t", &c.docs, "");
                        let ty = match &c.ty {
                            Some(t) => format!("*{}", self.go_type(t)?),
                            None => "bool".into(),
                        };
                        let _ = writeln!(out, "\t{} {ty} `json:\"{},omitempty\"`", pascal(&c.name), snake(&c.name));
                    }
                    out.push_str("}\n");
                }
                TypeDefKind::Enum(e) => {
                    let lower = camel(def.name.as_deref().unwrap_or(""));
                    doc(&mut out, "", &def.docs, "");
                    let _ = writeln!(out, "type {name} uint8\n\nconst (");
                    for (i, c) in e.cases.iter().enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        doc(&mut out, "\t", &c.docs, "");
                        let first = if i == 0 { format!(" {name} = iota") } else { String::new() };
                        let _ = writeln!(out, "\t{name}{}{first}", pascal(&c.name));
                    }
                    let names: Vec<String> = e.cases.iter().map(|c| format!("{:?}", snake(&c.name))).collect();
                    let values: Vec<String> = e.cases.iter().map(|c| format!("{name}{}", pascal(&c.name))).collect();
                    let _ = write!(
                        out,
                        ")\n\n// {lower}Names are the contract's (snake_case) names of {name}, in case order.\n\
                         var {lower}Names = [...]string{{{names}}}\n\n\
                         // {name}Values returns every {name}, in case order.\n\
                         func {name}Values() []{name} {{\n\treturn []{name}{{{values}}}\n}}\n\n\
                         // String is the contract's name of v.\n\
                         func (v {name}) String() string {{\n\
                         \tif int(v) < len({lower}Names) {{\n\t\treturn {lower}Names[v]\n\t}}\n\
                         \treturn \"{name}(\" + strconv.Itoa(int(v)) + \")\"\n}}\n\n\
                         // MarshalText encodes v as its contract name.\n\
                         func (v {name}) MarshalText() ([]byte, error) {{\n\
                         \tif int(v) >= len({lower}Names) {{\n\t\treturn nil, fmt.Errorf(\"no {name} %d\", uint8(v))\n\t}}\n\
                         \treturn []byte({lower}Names[v]), nil\n}}\n\n\
                         // UnmarshalText decodes a contract name.\n\
                         func (v *{name}) UnmarshalText(b []byte) error {{\n\
                         \tp, ok := Parse{name}(string(b))\n\tif !ok {{\n\t\treturn fmt.Errorf(\"unknown {name} %q\", b)\n\t}}\n\
                         \t*v = p\n\treturn nil\n}}\n\n\
                         // Parse{name} returns the {name} named s (snake_case), and whether there is one.\n\
                         func Parse{name}(s string) ({name}, bool) {{\n\
                         \tfor i, n := range {lower}Names {{\n\t\tif n == s {{\n\t\t\treturn {name}(i), true\n\t\t}}\n\t}}\n\
                         \treturn 0, false\n}}\n",
                        names = names.join(", "),
                        values = values.join(", ")
                    );
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Named records, variants and enums of every interface the world uses, in definition order.
    fn world_type_ids(&self) -> Vec<TypeId> {
        let world = &self.r.worlds[self.wit.world];
        let mut ids = Vec::new();
        for item in world.imports.values().chain(world.exports.values()) {
            if let WorldItem::Interface { id, .. } = item {
                for &t in self.r.interfaces[*id].types.values() {
                    if matches!(
                        self.r.types[t].kind,
                        TypeDefKind::Record(_) | TypeDefKind::Variant(_) | TypeDefKind::Enum(_)
                    ) {
                        ids.push(t);
                    }
                }
            }
        }
        ids
    }

    // ---- the ABI file ----

    fn abi_file(&mut self) -> Result<String> {
        let world = &self.r.worlds[self.wit.world];
        let mut exports = Vec::new();
        let mut imports = Vec::new();
        for (key, item) in world.exports.iter() {
            if let WorldItem::Interface { id, .. } = item {
                for f in self.r.interfaces[*id].functions.values() {
                    exports.push((self.r.name_world_key(key), f));
                }
            }
        }
        for (key, item) in world.imports.iter() {
            if let WorldItem::Interface { id, .. } = item {
                let iface = self.r.interfaces[*id].name.clone().unwrap_or_default();
                for f in self.r.interfaces[*id].functions.values() {
                    imports.push((self.r.name_world_key(key), iface.clone(), f));
                }
            }
        }
        let mut body = String::new();
        // the export table
        body.push_str("\n// The world's exports, as the core module names them.\nconst (\n");
        for (i, (_, f)) in exports.iter().enumerate() {
            let first = if i == 0 { " = iota" } else { "" };
            let _ = writeln!(body, "\tfn{}{first}", pascal(&f.name));
        }
        body.push_str("\tfnCount\n)\n\n// exportNames are the core export of each function.\nvar exportNames = [fnCount]string{\n");
        for (key, f) in &exports {
            let _ = writeln!(body, "\t\"{key}#{}\",", f.name);
        }
        body.push_str("}\n\n// exportNeedsPost marks the functions whose results own guest memory (a `cabi_post_*` export frees it).\nvar exportNeedsPost = [fnCount]bool{\n");
        for (_, f) in &exports {
            let post = f.result.as_ref().is_some_and(|t| self.owns_memory(t));
            let _ = writeln!(body, "\t{post},");
        }
        body.push_str("}\n");
        for (_, f) in &exports {
            self.export_fn(&mut body, f)?;
        }
        self.imports(&mut body, &imports)?;
        while let Some((id, mode)) = self.queue.pop_front() {
            self.helper(&mut body, id, mode)?;
        }
        let mut out = header("//", "go", OUT);
        out.push_str("\npackage retrypolicy\n\nimport (\n");
        for pkg in ["context", "fmt", "math", "strings"] {
            if body.contains(&format!("{pkg}.")) {
                let _ = writeln!(out, "\t\"{pkg}\"");
            }
        }
        out.push_str("\n\t\"github.com/tetratelabs/wazero\"\n\t\"github.com/tetratelabs/wazero/api\"\n)\n");
        out.push_str(&body);
        Ok(out)
    }

    /// Whether a value of ty points into guest memory (strings, lists).
    fn owns_memory(&self, ty: &Type) -> bool {
        match self.dealias(ty) {
            Type::String => true,
            Type::Id(id) => match &self.r.types[id].kind {
                TypeDefKind::List(_) => true,
                TypeDefKind::Record(r) => r.fields.iter().any(|f| self.owns_memory(&f.ty)),
                TypeDefKind::Variant(v) => v.cases.iter().any(|c| c.ty.as_ref().is_some_and(|t| self.owns_memory(t))),
                TypeDefKind::Option(t) => self.owns_memory(t),
                TypeDefKind::Result(r) => [r.ok, r.err].iter().flatten().any(|t| self.owns_memory(t)),
                _ => false,
            },
            _ => false,
        }
    }

    /// The Go results of a function: (declaration, zero-value return prefix).
    fn go_results(&self, f: &Function) -> Result<(String, String)> {
        let Some(ty) = &f.result else { return Ok(("error".into(), "return ".into())) };
        if let Type::Id(id) = self.dealias(ty) {
            match &self.r.types[id].kind {
                TypeDefKind::Result(res) => {
                    return Ok(match &res.ok {
                        Some(ok) => (format!("({}, error)", self.go_type(ok)?), "return zero, ".into()),
                        None => ("error".into(), "return ".into()),
                    })
                }
                TypeDefKind::Option(t) => {
                    return Ok((format!("({}, bool, error)", self.go_type(t)?), "return zero, false, ".into()))
                }
                _ => {}
            }
        }
        Ok((format!("({}, error)", self.go_type(ty)?), "return zero, ".into()))
    }

    fn export_fn(&mut self, out: &mut String, f: &Function) -> Result<()> {
        self.in_call = true;
        let sig = self.r.wasm_signature(AbiVariant::GuestExport, f);
        let name = pascal(&f.name);
        let mut params = vec!["ctx context.Context".to_string()];
        let mut vals = Vec::new();
        for p in &f.params {
            let ty = self.go_type(&p.ty)?;
            let by_ptr = matches!(self.dealias(&p.ty), Type::Id(id) if matches!(self.r.types[id].kind, TypeDefKind::Record(_) | TypeDefKind::Variant(_)));
            let v = camel(&p.name);
            params.push(format!("{v} {}{ty}", if by_ptr { "*" } else { "" }));
            vals.push(if by_ptr { format!("(*{v})") } else { v });
        }
        let (results, prefix) = self.go_results(f)?;
        let ret = format!("{prefix}{{}}");
        let how =
            if sig.indirect_params { "the params tuple in memory (more than 16 flat values)" } else { "flat params" };
        let res = match (&f.result, sig.retptr) {
            (None, _) => "no result",
            (Some(_), true) => "the result through the return area",
            (Some(_), false) => "a flat result",
        };
        let _ = writeln!(out, "\n// call{name} calls the export `{}`: {how}, {res}.", f.name);
        let _ = writeln!(out, "func (in *instance) call{name}({}) {results} {{", params.join(", "));
        if let Some(t) = f.result.as_ref() {
            if let Some(zt) = self.zero_type(t)? {
                let _ = writeln!(out, "\tvar zero {zt}");
            }
        }
        if sig.indirect_params {
            let info = self.wit.sizes.record(f.params.iter().map(|p| &p.ty));
            let (size, align) = (info.size.size_wasm32(), info.align.align_wasm32());
            let _ = writeln!(out, "\tb := in.scratchArea({size})");
            let offsets: Vec<usize> = self
                .wit
                .sizes
                .field_offsets(f.params.iter().map(|p| &p.ty))
                .iter()
                .map(|(o, _)| o.size_wasm32())
                .collect();
            for ((p, off), v) in f.params.iter().zip(offsets).zip(&vals) {
                self.store(out, "\t", &p.ty, "b", &off.to_string(), v, &p.name, &ret)?;
            }
            let _ = writeln!(
                out,
                "\tptr, err := in.writeArea(ctx, {align}, b)\n\tif err != nil {{\n\t\t{}\n\t}}",
                leave(&ret, "err")
            );
            out.push_str("\ts := in.stack[:1]\n\ts[0] = uint64(ptr)\n");
        } else if sig.params.is_empty() {
            out.push_str("\ts := in.stack[:1]\n");
        } else {
            out.push_str("\ts := in.stack[:0]\n");
            for (p, v) in f.params.iter().zip(&vals) {
                self.flat_lower(out, "\t", &p.ty, v, &p.name, &ret)?;
            }
        }
        let Some(rt) = f.result.as_ref() else {
            let _ = writeln!(out, "\treturn in.invoke(ctx, fn{name}, s)\n}}");
            return Ok(());
        };
        if !sig.retptr {
            let _ = writeln!(
                out,
                "\tif err := in.invoke(ctx, fn{name}, s); err != nil {{\n\t\t{}\n\t}}",
                leave(&ret, "err")
            );
            let v = self.lift_flat_expr(out, "\t", rt, &ret)?;
            let _ = writeln!(out, "\treturn {v}, nil\n}}");
            return Ok(());
        }
        let _ =
            writeln!(out, "\tif err := in.invoke(ctx, fn{name}, s); err != nil {{\n\t\t{}\n\t}}", leave(&ret, "err"));
        let size = self.size(rt);
        let _ = writeln!(
            out,
            "\tret := uint32(s[0])\n\tr, err := in.view(ret, {size})\n\tif err != nil {{\n\t\t{}\n\t}}",
            leave(&ret, "err")
        );
        let post = if self.owns_memory(rt) {
            format!("\tif err := in.post(ctx, fn{name}, ret); err != nil {{\n\t\t{}\n\t}}\n", leave(&ret, "err"))
        } else {
            String::new()
        };
        match self.dealias(rt) {
            Type::Id(id) if matches!(self.r.types[id].kind, TypeDefKind::Result(_)) => {
                let TypeDefKind::Result(res) = self.r.types[id].kind.clone() else { unreachable!() };
                let off = self
                    .wit
                    .sizes
                    .payload_offset(Int::U8, [res.ok.as_ref(), res.err.as_ref()])
                    .size_wasm32()
                    .to_string();
                out.push_str("\tvar callErr error\n\tswitch r[0] {\n\tcase 0:\n");
                if let Some(ok) = &res.ok {
                    self.lift(out, "\t\t", ok, "r", &off, "zero", &ret)?;
                }
                out.push_str("\tcase 1:\n");
                match res.err.map(|t| self.dealias(&t)) {
                    Some(Type::Id(eid)) if matches!(self.r.types[eid].kind, TypeDefKind::Record(_)) => {
                        let _ = writeln!(out, "\t\tvar e {}", self.named(eid));
                        self.lift(out, "\t\t", &Type::Id(eid), "r", &off, "e", &ret)?;
                        out.push_str("\t\tcallErr = &e\n");
                    }
                    Some(Type::String) => {
                        out.push_str("\t\tvar e string\n");
                        self.lift(out, "\t\t", &Type::String, "r", &off, "e", &ret)?;
                        out.push_str("\t\tcallErr = fmt.Errorf(\"%s\", e)\n");
                    }
                    None => out.push_str("\t\tcallErr = fmt.Errorf(\"error\")\n"),
                    Some(other) => bail!("go: unsupported result error type {other:?}"),
                }
                let _ = writeln!(
                    out,
                    "\tdefault:\n\t\t{}\n\t}}",
                    leave(&ret, "abiErrorf(\"result discriminant %d\", r[0])")
                );
                out.push_str(&post);
                let ok = if res.ok.is_some() { "zero, " } else { "" };
                let _ = writeln!(out, "\treturn {ok}callErr\n}}");
            }
            Type::Id(id) if matches!(self.r.types[id].kind, TypeDefKind::Option(_)) => {
                let TypeDefKind::Option(t) = self.r.types[id].kind.clone() else { unreachable!() };
                let off = self.wit.sizes.payload_offset(Int::U8, [None, Some(&t)]).size_wasm32().to_string();
                out.push_str("\tok := false\n\tswitch r[0] {\n\tcase 0:\n\tcase 1:\n\t\tok = true\n");
                self.lift(out, "\t\t", &t, "r", &off, "zero", &ret)?;
                let _ = writeln!(
                    out,
                    "\tdefault:\n\t\t{}\n\t}}",
                    leave(&ret, "abiErrorf(\"option discriminant %d\", r[0])")
                );
                out.push_str(&post);
                out.push_str("\treturn zero, ok, nil\n}\n");
            }
            _ => {
                self.lift(out, "\t", rt, "r", "0", "zero", &ret)?;
                out.push_str(&post);
                out.push_str("\treturn zero, nil\n}\n");
            }
        }
        Ok(())
    }

    /// The Go type of a function's `zero` result variable, if it has one.
    fn zero_type(&self, ty: &Type) -> Result<Option<String>> {
        if let Type::Id(id) = self.dealias(ty) {
            match &self.r.types[id].kind {
                TypeDefKind::Result(res) => return res.ok.as_ref().map(|t| self.go_type(t)).transpose(),
                TypeDefKind::Option(t) => return Ok(Some(self.go_type(t)?)),
                _ => {}
            }
        }
        Ok(Some(self.go_type(ty)?))
    }
}

/// An offset expression: `base + k`.
fn at(base: &str, k: usize) -> String {
    if let Ok(b) = base.parse::<usize>() {
        return (b + k).to_string();
    }
    match (base.is_empty(), k) {
        (true, k) => k.to_string(),
        (false, 0) => base.to_string(),
        (false, k) => format!("{base}+{k}"),
    }
}

/// `&val`, without `&*` (a pointer expression `(*p)` is just `p`).
fn addr(val: &str) -> String {
    match val.strip_prefix("(*").and_then(|v| v.strip_suffix(')')) {
        Some(p) if !p.contains(['(', ')', ' ']) => p.to_string(),
        _ => format!("&{val}"),
    }
}

/// The statement that leaves with error expression `e` (`ret` holds `{}`).
fn leave(ret: &str, e: &str) -> String {
    ret.replace("{}", e)
}

fn tag_put(t: Int, buf: &str, off: &str, v: &str) -> String {
    match t {
        Int::U8 => format!("{buf}[{off}] = uint8({v})"),
        Int::U16 => format!("le.PutUint16({buf}[{off}:], uint16({v}))"),
        Int::U32 => format!("le.PutUint32({buf}[{off}:], uint32({v}))"),
        Int::U64 => format!("le.PutUint64({buf}[{off}:], uint64({v}))"),
    }
}

fn tag_get(t: Int, buf: &str, off: &str) -> String {
    match t {
        Int::U8 => format!("uint64({buf}[{off}])"),
        Int::U16 => format!("uint64(le.Uint16({buf}[{off}:]))"),
        Int::U32 => format!("uint64(le.Uint32({buf}[{off}:]))"),
        Int::U64 => format!("le.Uint64({buf}[{off}:])"),
    }
}

impl<'a> Gen<'a> {
    /// Statements storing `val` (an addressable Go value of `ty`) at `buf[off]`.
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        out: &mut String,
        ind: &str,
        ty: &Type,
        buf: &str,
        off: &str,
        val: &str,
        field: &str,
        ret: &str,
    ) -> Result<()> {
        let f = snake(field);
        let w = |e: &str| leave(ret, &format!("withField(\"{f}\", {e})"));
        let line = match self.dealias(ty) {
            Type::Bool => format!("{buf}[{off}] = uint8(b2u({val}))"),
            Type::U8 => format!("{buf}[{off}] = {val}"),
            Type::S8 => format!("{buf}[{off}] = uint8({val})"),
            Type::U16 | Type::S16 => format!("le.PutUint16({buf}[{off}:], uint16({val}))"),
            Type::U32 | Type::S32 => format!("le.PutUint32({buf}[{off}:], uint32({val}))"),
            Type::U64 | Type::S64 => format!("le.PutUint64({buf}[{off}:], uint64({val}))"),
            Type::F32 => format!("le.PutUint32({buf}[{off}:], math.Float32bits({val}))"),
            Type::F64 => format!("le.PutUint64({buf}[{off}:], math.Float64bits({val}))"),
            Type::String => {
                let t = self.tmp();
                let r = self.recv();
                format!(
                    "if p{t}, n{t}, err := {r}.lowerString(ctx, {val}); err != nil {{\n{ind}\t{}\n{ind}}} else {{\n\
                     {ind}\tle.PutUint32({buf}[{off}:], p{t})\n{ind}\tle.PutUint32({buf}[{}:], n{t})\n{ind}}}",
                    w("err"),
                    at(off, 4)
                )
            }
            Type::Id(id) => match &self.r.types[id].kind {
                TypeDefKind::Enum(e) => format!(
                    "if uint64({val}) >= {n} {{\n{ind}\t{}\n{ind}}}\n{ind}{}",
                    w(&format!("enumError(\"{}\", uint64({val}))", self.named(id))),
                    tag_put(e.tag(), buf, off, val),
                    n = e.cases.len()
                ),
                TypeDefKind::Record(_) | TypeDefKind::Variant(_) => {
                    self.need(id, Mode::Store);
                    format!(
                        "if err := {}.store{}(ctx, {buf}[{off}:], {}); err != nil {{\n{ind}\t{}\n{ind}}}",
                        self.recv(),
                        self.named(id),
                        addr(val),
                        w("err")
                    )
                }
                TypeDefKind::Option(t) => {
                    let t = *t;
                    let po = self.wit.sizes.payload_offset(Int::U8, [None, Some(&t)]).size_wasm32();
                    let mut inner = String::new();
                    let ii = format!("{ind}\t");
                    self.store(&mut inner, &ii, &t, buf, &at(off, po), &format!("(*{val})"), field, ret)?;
                    format!("if {val} == nil {{\n{ind}\t{buf}[{off}] = 0\n{ind}}} else {{\n{ind}\t{buf}[{off}] = 1\n{inner}{ind}}}")
                }
                TypeDefKind::List(t) => {
                    let t = *t;
                    let (size, align) = (self.size(&t), self.align(&t));
                    let k = self.tmp();
                    let r = self.recv();
                    let mut inner = String::new();
                    let ii = format!("{ind}\t\t");
                    self.store(
                        &mut inner,
                        &ii,
                        &t,
                        &format!("l{k}"),
                        &format!("i{k}*{size}"),
                        &format!("{val}[i{k}]"),
                        field,
                        ret,
                    )?;
                    format!(
                        "if l{k}, err := {r}.listArea(len({val}), {size}); err != nil {{\n{ind}\t{e}\n{ind}}} else {{\n\
                         {ind}\tfor i{k} := range {val} {{\n{inner}{ind}\t}}\n\
                         {ind}\tp{k}, err := {r}.writeArea(ctx, {align}, l{k})\n{ind}\tif err != nil {{\n{ind}\t\t{e}\n{ind}\t}}\n\
                         {ind}\tle.PutUint32({buf}[{off}:], p{k})\n{ind}\tle.PutUint32({buf}[{o4}:], uint32(len({val})))\n{ind}}}",
                        e = w("err"),
                        o4 = at(off, 4)
                    )
                }
                other => bail!("go: cannot store {other:?}"),
            },
            other => bail!("go: cannot store {other:?}"),
        };
        let _ = writeln!(out, "{ind}{line}");
        Ok(())
    }

    /// Statements lifting the value of `ty` at `buf[off]` into `dst`.
    #[allow(clippy::too_many_arguments)]
    fn lift(
        &mut self,
        out: &mut String,
        ind: &str,
        ty: &Type,
        buf: &str,
        off: &str,
        dst: &str,
        ret: &str,
    ) -> Result<()> {
        let r = self.recv();
        let line = match self.dealias(ty) {
            Type::Bool => format!(
                "if {buf}[{off}] > 1 {{\n{ind}\t{}\n{ind}}}\n{ind}{dst} = {buf}[{off}] == 1",
                leave(ret, &format!("abiErrorf(\"bool byte %d\", {buf}[{off}])"))
            ),
            Type::U8 => format!("{dst} = {buf}[{off}]"),
            Type::S8 => format!("{dst} = int8({buf}[{off}])"),
            Type::U16 => format!("{dst} = le.Uint16({buf}[{off}:])"),
            Type::S16 => format!("{dst} = int16(le.Uint16({buf}[{off}:]))"),
            Type::U32 => format!("{dst} = le.Uint32({buf}[{off}:])"),
            Type::S32 => format!("{dst} = int32(le.Uint32({buf}[{off}:]))"),
            Type::U64 => format!("{dst} = le.Uint64({buf}[{off}:])"),
            Type::S64 => format!("{dst} = int64(le.Uint64({buf}[{off}:]))"),
            Type::F32 => format!("{dst} = math.Float32frombits(le.Uint32({buf}[{off}:]))"),
            Type::F64 => format!("{dst} = math.Float64frombits(le.Uint64({buf}[{off}:]))"),
            Type::String => {
                let t = self.tmp();
                format!(
                    "if s{t}, err := {r}.liftString(le.Uint32({buf}[{off}:]), le.Uint32({buf}[{}:])); err != nil {{\n{ind}\t{}\n{ind}}} else {{\n{ind}\t{dst} = s{t}\n{ind}}}",
                    at(off, 4),
                    leave(ret, "err")
                )
            }
            Type::Id(id) => match &self.r.types[id].kind {
                TypeDefKind::Enum(e) => {
                    let (g, name) = (tag_get(e.tag(), buf, off), self.named(id));
                    format!(
                        "if {g} >= {n} {{\n{ind}\t{}\n{ind}}}\n{ind}{dst} = {name}({g})",
                        leave(ret, &format!("abiErrorf(\"{name} discriminant %d\", {g})")),
                        n = e.cases.len()
                    )
                }
                TypeDefKind::Record(_) | TypeDefKind::Variant(_) => {
                    self.need(id, Mode::Lift);
                    let t = self.tmp();
                    format!(
                        "if v{t}, err := {r}.lift{}({buf}[{off}:]); err != nil {{\n{ind}\t{}\n{ind}}} else {{\n{ind}\t{dst} = v{t}\n{ind}}}",
                        self.named(id),
                        leave(ret, "err")
                    )
                }
                TypeDefKind::Option(t) => {
                    let t = *t;
                    let po = self.wit.sizes.payload_offset(Int::U8, [None, Some(&t)]).size_wasm32();
                    let k = self.tmp();
                    let mut inner = String::new();
                    let ii = format!("{ind}\t");
                    self.lift(&mut inner, &ii, &t, buf, &at(off, po), &format!("o{k}"), ret)?;
                    format!(
                        "switch {buf}[{off}] {{\n{ind}case 0:\n{ind}\t{dst} = nil\n{ind}case 1:\n{ind}\tvar o{k} {}\n{inner}{ind}\t{dst} = &o{k}\n\
                         {ind}default:\n{ind}\t{}\n{ind}}}",
                        self.go_type(&t)?,
                        leave(ret, &format!("abiErrorf(\"option discriminant %d\", {buf}[{off}])"))
                    )
                }
                TypeDefKind::List(t) => {
                    let t = *t;
                    let size = self.size(&t);
                    if size == 0 {
                        bail!("go: list of zero-sized elements");
                    }
                    let k = self.tmp();
                    let mut inner = String::new();
                    let ii = format!("{ind}\t\t");
                    self.lift(
                        &mut inner,
                        &ii,
                        &t,
                        &format!("a{k}"),
                        &format!("i{k}*{size}"),
                        &format!("l{k}[i{k}]"),
                        ret,
                    )?;
                    format!(
                        "if a{k}, err := {r}.listView(le.Uint32({buf}[{off}:]), le.Uint32({buf}[{o4}:]), {size}); err != nil {{\n{ind}\t{e}\n{ind}}} else {{\n\
                         {ind}\tl{k} := make([]{gt}, len(a{k})/{size})\n{ind}\tfor i{k} := range l{k} {{\n{inner}{ind}\t}}\n{ind}\t{dst} = l{k}\n{ind}}}",
                        o4 = at(off, 4),
                        e = leave(ret, "err"),
                        gt = self.go_type(&t)?
                    )
                }
                other => bail!("go: cannot lift {other:?}"),
            },
            other => bail!("go: cannot lift {other:?}"),
        };
        let _ = writeln!(out, "{ind}{line}");
        Ok(())
    }

    /// Statements appending the flat values of `val` to `s`.
    #[allow(clippy::too_many_arguments)]
    fn flat_lower(&mut self, out: &mut String, ind: &str, ty: &Type, val: &str, field: &str, ret: &str) -> Result<()> {
        let f = snake(field);
        let w = |e: &str| leave(ret, &format!("withField(\"{f}\", {e})"));
        let r = self.recv();
        let line = match self.dealias(ty) {
            Type::Bool => format!("s = append(s, b2u({val}))"),
            Type::U8 | Type::U16 | Type::U32 => format!("s = append(s, uint64({val}))"),
            Type::S8 | Type::S16 | Type::S32 => format!("s = append(s, uint64(uint32({val})))"),
            Type::U64 | Type::S64 => format!("s = append(s, uint64({val}))"),
            Type::F32 => format!("s = append(s, uint64(math.Float32bits({val})))"),
            Type::F64 => format!("s = append(s, math.Float64bits({val}))"),
            Type::String => {
                let t = self.tmp();
                format!(
                    "if p{t}, n{t}, err := {r}.lowerString(ctx, {val}); err != nil {{\n{ind}\t{}\n{ind}}} else {{\n{ind}\ts = append(s, uint64(p{t}), uint64(n{t}))\n{ind}}}",
                    w("err")
                )
            }
            Type::Id(id) => match &self.r.types[id].kind {
                TypeDefKind::Enum(e) => format!(
                    "if uint64({val}) >= {n} {{\n{ind}\t{}\n{ind}}}\n{ind}s = append(s, uint64({val}))",
                    w(&format!("enumError(\"{}\", uint64({val}))", self.named(id))),
                    n = e.cases.len()
                ),
                TypeDefKind::Record(_) | TypeDefKind::Variant(_) => {
                    self.need(id, Mode::Flat);
                    let t = self.tmp();
                    format!(
                        "if s{t}, err := {r}.flat{}(ctx, s, {}); err != nil {{\n{ind}\t{}\n{ind}}} else {{\n{ind}\ts = s{t}\n{ind}}}",
                        self.named(id),
                        addr(val),
                        w("err")
                    )
                }
                TypeDefKind::Option(t) => {
                    let t = *t;
                    let zeros = ", 0".repeat(self.flat(&t).len());
                    let mut inner = String::new();
                    let ii = format!("{ind}\t");
                    self.flat_lower(&mut inner, &ii, &t, &format!("(*{val})"), field, ret)?;
                    format!("if {val} == nil {{\n{ind}\ts = append(s, 0{zeros})\n{ind}}} else {{\n{ind}\ts = append(s, 1)\n{inner}{ind}}}")
                }
                TypeDefKind::List(t) => {
                    let t = *t;
                    let (size, align) = (self.size(&t), self.align(&t));
                    let k = self.tmp();
                    let mut inner = String::new();
                    let ii = format!("{ind}\t\t");
                    self.store(
                        &mut inner,
                        &ii,
                        &t,
                        &format!("l{k}"),
                        &format!("i{k}*{size}"),
                        &format!("{val}[i{k}]"),
                        field,
                        ret,
                    )?;
                    format!(
                        "if l{k}, err := {r}.listArea(len({val}), {size}); err != nil {{\n{ind}\t{e}\n{ind}}} else {{\n\
                         {ind}\tfor i{k} := range {val} {{\n{inner}{ind}\t}}\n\
                         {ind}\tp{k}, err := {r}.writeArea(ctx, {align}, l{k})\n{ind}\tif err != nil {{\n{ind}\t\t{e}\n{ind}\t}}\n\
                         {ind}\ts = append(s, uint64(p{k}), uint64(len({val})))\n{ind}}}",
                        e = w("err")
                    )
                }
                other => bail!("go: cannot lower {other:?}"),
            },
            other => bail!("go: cannot lower {other:?}"),
        };
        let _ = writeln!(out, "{ind}{line}");
        Ok(())
    }

    /// Statements lifting `ty` from the flat values in slice `s` into `dst`, consuming them.
    fn lift_flat(&mut self, out: &mut String, ind: &str, ty: &Type, dst: &str, ret: &str) -> Result<()> {
        let r = self.recv();
        let line = match self.dealias(ty) {
            Type::Bool => format!(
                "if uint32(s[0]) > 1 {{\n{ind}\t{}\n{ind}}}\n{ind}{dst} = uint32(s[0]) == 1\n{ind}s = s[1:]",
                leave(ret, "abiErrorf(\"bool value %d\", uint32(s[0]))")
            ),
            Type::U8 | Type::U16 | Type::U32 | Type::S8 | Type::S16 | Type::S32 | Type::U64 | Type::S64 => {
                format!("{dst} = {}(s[0])\n{ind}s = s[1:]", self.go_type(ty)?)
            }
            Type::F32 => format!("{dst} = math.Float32frombits(uint32(s[0]))\n{ind}s = s[1:]"),
            Type::F64 => format!("{dst} = math.Float64frombits(s[0])\n{ind}s = s[1:]"),
            Type::String => {
                let t = self.tmp();
                format!(
                    "if s{t}, err := {r}.liftString(uint32(s[0]), uint32(s[1])); err != nil {{\n{ind}\t{}\n{ind}}} else {{\n{ind}\t{dst} = s{t}\n{ind}}}\n{ind}s = s[2:]",
                    leave(ret, "err")
                )
            }
            Type::Id(id) => match &self.r.types[id].kind {
                TypeDefKind::Enum(e) => {
                    let name = self.named(id);
                    format!(
                        "if uint32(s[0]) >= {n} {{\n{ind}\t{}\n{ind}}}\n{ind}{dst} = {name}(uint32(s[0]))\n{ind}s = s[1:]",
                        leave(ret, &format!("abiErrorf(\"{name} discriminant %d\", uint32(s[0]))")),
                        n = e.cases.len()
                    )
                }
                TypeDefKind::Record(_) => {
                    self.need(id, Mode::LiftFlat);
                    let t = self.tmp();
                    format!(
                        "if v{t}, rest{t}, err := {r}.liftFlat{}(s); err != nil {{\n{ind}\t{}\n{ind}}} else {{\n{ind}\t{dst}, s = v{t}, rest{t}\n{ind}}}",
                        self.named(id),
                        leave(ret, "err")
                    )
                }
                other => bail!("go: cannot lift {other:?} from flat values"),
            },
            other => bail!("go: cannot lift {other:?} from flat values"),
        };
        let _ = writeln!(out, "{ind}{line}");
        Ok(())
    }

    /// Checks, then the Go expression of a single flat export result in `s[0]`
    /// (an i32 is the low half of its stack slot: wazero leaves the rest undefined).
    fn lift_flat_expr(&mut self, out: &mut String, ind: &str, ty: &Type, ret: &str) -> Result<String> {
        Ok(match self.dealias(ty) {
            Type::Bool => {
                let _ = writeln!(
                    out,
                    "{ind}if uint32(s[0]) > 1 {{\n{ind}\t{}\n{ind}}}",
                    leave(ret, "abiErrorf(\"bool value %d\", uint32(s[0]))")
                );
                "uint32(s[0]) == 1".into()
            }
            Type::F32 => "math.Float32frombits(uint32(s[0]))".into(),
            Type::F64 => "math.Float64frombits(s[0])".into(),
            Type::Id(id) if matches!(self.r.types[id].kind, TypeDefKind::Enum(_)) => {
                let TypeDefKind::Enum(e) = &self.r.types[id].kind else { unreachable!() };
                let name = self.named(id);
                let _ = writeln!(
                    out,
                    "{ind}if uint32(s[0]) >= {} {{\n{ind}\t{}\n{ind}}}",
                    e.cases.len(),
                    leave(ret, &format!("abiErrorf(\"{name} discriminant %d\", uint32(s[0]))"))
                );
                format!("{name}(uint32(s[0]))")
            }
            Type::Id(_) | Type::String => bail!("go: flat result of a compound type"),
            _ => format!("{}(s[0])", self.go_type(ty)?),
        })
    }

    fn recv(&self) -> &'static str {
        if self.in_call {
            "in"
        } else {
            "a"
        }
    }
}

fn value_type(t: WasmType) -> &'static str {
    match t {
        WasmType::I32 | WasmType::Pointer | WasmType::Length => "api.ValueTypeI32",
        WasmType::I64 | WasmType::PointerOrI64 => "api.ValueTypeI64",
        WasmType::F32 => "api.ValueTypeF32",
        WasmType::F64 => "api.ValueTypeF64",
    }
}

impl<'a> Gen<'a> {
    /// The helper of one named type in one mode.
    fn helper(&mut self, out: &mut String, id: TypeId, mode: Mode) -> Result<()> {
        self.in_call = false;
        let name = self.named(id);
        let kind = self.r.types[id].kind.clone();
        let size = self.size(&Type::Id(id));
        match (&kind, mode) {
            (TypeDefKind::Record(rec), _) => {
                let offsets: Vec<usize> = self
                    .wit
                    .sizes
                    .field_offsets(rec.fields.iter().map(|f| &f.ty))
                    .iter()
                    .map(|(o, _)| o.size_wasm32())
                    .collect();
                let (sig, ret, done) = match mode {
                    Mode::Store => (
                        format!("store{name}(ctx context.Context, b []byte, v *{name}) error"),
                        "return {}",
                        "return nil",
                    ),
                    Mode::Lift => (format!("lift{name}(b []byte) ({name}, error)"), "return v, {}", "return v, nil"),
                    Mode::Flat => (
                        format!("flat{name}(ctx context.Context, s []uint64, v *{name}) ([]uint64, error)"),
                        "return s, {}",
                        "return s, nil",
                    ),
                    Mode::LiftFlat => (
                        format!("liftFlat{name}(s []uint64) ({name}, []uint64, error)"),
                        "return v, s, {}",
                        "return v, s, nil",
                    ),
                };
                let what = match mode {
                    Mode::Store => format!("writes *v at b[0:{size}]"),
                    Mode::Lift => format!("reads the {name} at b[0:{size}]"),
                    Mode::Flat => "appends the flat values of *v to s".into(),
                    Mode::LiftFlat => "reads a {name} from the flat values s and returns the rest".into(),
                };
                let _ = writeln!(
                    out,
                    "\n// {} {what} (canonical ABI).\nfunc (a *abi) {sig} {{",
                    sig.split('(').next().unwrap_or_default()
                );
                if matches!(mode, Mode::Lift | Mode::LiftFlat) {
                    let _ = writeln!(out, "\tvar v {name}");
                }
                for (f, off) in rec.fields.iter().zip(offsets) {
                    let v = format!("v.{}", pascal(&f.name));
                    match mode {
                        Mode::Store => self.store(out, "\t", &f.ty, "b", &off.to_string(), &v, &f.name, ret)?,
                        Mode::Lift => self.lift(out, "\t", &f.ty, "b", &off.to_string(), &v, ret)?,
                        Mode::Flat => self.flat_lower(out, "\t", &f.ty, &v, &f.name, ret)?,
                        Mode::LiftFlat => self.lift_flat(out, "\t", &f.ty, &v, ret)?,
                    }
                }
                let _ = writeln!(out, "\t{done}\n}}");
            }
            (TypeDefKind::Variant(var), Mode::Store | Mode::Flat) => {
                let conds: Vec<String> = var
                    .cases
                    .iter()
                    .map(|c| {
                        if c.ty.is_some() {
                            format!("v.{} != nil", pascal(&c.name))
                        } else {
                            format!("v.{}", pascal(&c.name))
                        }
                    })
                    .collect();
                let names: Vec<String> = var.cases.iter().map(|c| pascal(&c.name)).collect();
                let (sig, ret, done) = if mode == Mode::Store {
                    (format!("store{name}(ctx context.Context, b []byte, v *{name}) error"), "return {}", "return nil")
                } else {
                    (
                        format!("flat{name}(ctx context.Context, s []uint64, v *{name}) ([]uint64, error)"),
                        "return s, {}",
                        "return s, nil",
                    )
                };
                let what = if mode == Mode::Store {
                    format!("writes *v at b[0:{size}]")
                } else {
                    "appends the flat values of *v to s".into()
                };
                let _ = writeln!(
                    out,
                    "\n// {} {what} (canonical ABI); exactly one case must be set.\nfunc (a *abi) {sig} {{\n\tn := 0",
                    sig.split('(').next().unwrap_or_default()
                );
                for c in &conds {
                    let _ = writeln!(out, "\tif {c} {{\n\t\tn++\n\t}}");
                }
                let _ = writeln!(
                    out,
                    "\tif n != 1 {{\n\t\t{}\n\t}}\n\tswitch {{",
                    leave(
                        ret,
                        &format!("lowerErrorf(\"{name}\", \"set exactly one of {} (%d set)\", n)", names.join(", "))
                    )
                );
                let po =
                    self.wit.sizes.payload_offset(var.tag(), var.cases.iter().map(|c| c.ty.as_ref())).size_wasm32();
                let joined = self.flat(&Type::Id(id)).len() - 1;
                for (i, (c, cond)) in var.cases.iter().zip(&conds).enumerate() {
                    let _ = writeln!(out, "\tcase {cond}:");
                    let val = format!("(*v.{})", pascal(&c.name));
                    if mode == Mode::Store {
                        let _ = writeln!(out, "\t\t{}", tag_put(var.tag(), "b", "0", &i.to_string()));
                        if let Some(t) = &c.ty {
                            self.store(out, "\t\t", t, "b", &po.to_string(), &val, &c.name, ret)?;
                        }
                    } else {
                        let _ = writeln!(out, "\t\ts = append(s, {i})");
                        let used = match &c.ty {
                            Some(t) => {
                                self.flat_lower(out, "\t\t", t, &val, &c.name, ret)?;
                                self.flat(t).len()
                            }
                            None => 0,
                        };
                        if joined > used {
                            let _ = writeln!(out, "\t\ts = append(s{})", ", 0".repeat(joined - used));
                        }
                    }
                }
                let _ = writeln!(out, "\t}}\n\t{done}\n}}");
            }
            (TypeDefKind::Variant(var), Mode::Lift) => {
                let po =
                    self.wit.sizes.payload_offset(var.tag(), var.cases.iter().map(|c| c.ty.as_ref())).size_wasm32();
                let g = tag_get(var.tag(), "b", "0");
                let _ = writeln!(out, "\n// lift{name} reads the {name} at b[0:{size}] (canonical ABI).\nfunc (a *abi) lift{name}(b []byte) ({name}, error) {{\n\tvar v {name}\n\tswitch {g} {{");
                for (i, c) in var.cases.iter().enumerate() {
                    let _ = writeln!(out, "\tcase {i}:");
                    match &c.ty {
                        Some(t) => {
                            let _ = writeln!(out, "\t\tvar p {}", self.go_type(t)?);
                            self.lift(out, "\t\t", t, "b", &po.to_string(), "p", "return v, {}")?;
                            let _ = writeln!(out, "\t\tv.{} = &p", pascal(&c.name));
                        }
                        None => {
                            let _ = writeln!(out, "\t\tv.{} = true", pascal(&c.name));
                        }
                    }
                }
                let _ = writeln!(
                    out,
                    "\tdefault:\n\t\treturn v, abiErrorf(\"{name} discriminant %d\", {g})\n\t}}\n\treturn v, nil\n}}"
                );
            }
            (other, _) => bail!("go: no helper for {other:?}"),
        }
        Ok(())
    }

    fn imports(&mut self, out: &mut String, imports: &[(String, String, &Function)]) -> Result<()> {
        self.in_call = false;
        out.push_str("\n// worldImports is the host side of the world's imports; the package implements it.\ntype worldImports interface {\n");
        let mut methods = Vec::new();
        for (i, (_, iface, f)) in imports.iter().enumerate() {
            let m = camel(iface) + &pascal(&f.name);
            let mut params = vec!["ctx context.Context".to_string()];
            for p in &f.params {
                params.push(format!("{} {}", camel(&p.name), self.go_type(&p.ty)?));
            }
            let (results, ok) = match f.result.as_ref().map(|t| self.dealias(t)) {
                None => (String::new(), None),
                Some(Type::Id(id)) if matches!(self.r.types[id].kind, TypeDefKind::Result(_)) => {
                    let TypeDefKind::Result(res) = &self.r.types[id].kind else { unreachable!() };
                    if !matches!(res.err, Some(Type::String)) {
                        bail!("go: import {}: only result<_, string> errors are supported", f.name);
                    }
                    match &res.ok {
                        Some(t) => (format!(" ({}, error)", self.go_type(t)?), Some((id, res.ok))),
                        None => (" error".into(), Some((id, None))),
                    }
                }
                Some(t) => (format!(" {}", self.go_type(&t)?), None),
            };
            if i > 0 {
                out.push('\n');
            }
            doc(out, "\t", &f.docs, "");
            let _ = writeln!(out, "\t{m}({}){results}", params.join(", "));
            methods.push((m, ok));
        }
        out.push_str("}\n\n// instantiateImports registers the world's imports as wazero host modules calling h.\nfunc instantiateImports(ctx context.Context, rt wazero.Runtime, h worldImports) error {\n");
        let mut modules: Vec<&String> = imports.iter().map(|(m, _, _)| m).collect();
        modules.dedup();
        for module in modules {
            let _ = writeln!(out, "\t{{\n\t\tb := rt.NewHostModuleBuilder(\"{module}\")");
            for ((m, _, f), (meth, _)) in imports.iter().zip(&methods) {
                if m != module {
                    continue;
                }
                let sig = self.r.wasm_signature(AbiVariant::GuestImport, f);
                let ps: Vec<&str> = sig.params.iter().map(|t| value_type(*t)).collect();
                let rs: Vec<&str> = sig.results.iter().map(|t| value_type(*t)).collect();
                let _ = writeln!(
                    out,
                    "\t\tb.NewFunctionBuilder().WithGoModuleFunction(import{}(h), []api.ValueType{{{}}}, []api.ValueType{{{}}}).Export(\"{}\")",
                    pascal(meth),
                    ps.join(", "),
                    rs.join(", "),
                    f.name
                );
            }
            let _ = writeln!(out, "\t\tif _, err := b.Instantiate(ctx); err != nil {{\n\t\t\treturn fmt.Errorf(\"host module %s: %w\", \"{module}\", err)\n\t\t}}\n\t}}");
        }
        out.push_str("\treturn nil\n}\n");
        for ((_, iface, f), (meth, ok)) in imports.iter().zip(methods) {
            let sig = self.r.wasm_signature(AbiVariant::GuestImport, f);
            let mut body = String::new();
            if !f.params.is_empty() {
                body.push_str("\t\ts := stack\n");
            }
            let mut args = vec!["ctx".to_string()];
            for p in &f.params {
                let v = camel(&p.name);
                match self.dealias(&p.ty) {
                    Type::F64 => {
                        let _ = writeln!(body, "\t\t{v} := math.Float64frombits(s[0])\n\t\ts = s[1:]");
                    }
                    Type::F32 => {
                        let _ = writeln!(body, "\t\t{v} := math.Float32frombits(uint32(s[0]))\n\t\ts = s[1:]");
                    }
                    Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::S8 | Type::S16 | Type::S32 | Type::S64 => {
                        let _ = writeln!(body, "\t\t{v} := {}(s[0])\n\t\ts = s[1:]", self.go_type(&p.ty)?);
                    }
                    _ => {
                        let _ = writeln!(body, "\t\tvar {v} {}", self.go_type(&p.ty)?);
                        self.lift_flat(&mut body, "\t\t", &p.ty, &v, "panic({})")?;
                    }
                }
                args.push(v);
            }
            let call = format!("h.{meth}({})", args.join(", "));
            match (ok, sig.retptr) {
                (None, false) if f.result.is_none() => {
                    let _ = writeln!(body, "\t\t{call}");
                }
                (None, false) => {
                    let enc = match self.dealias(f.result.as_ref().unwrap()) {
                        Type::U64 => call,
                        Type::S64 | Type::U8 | Type::U16 | Type::U32 => format!("uint64({call})"),
                        Type::F64 => format!("math.Float64bits({call})"),
                        other => bail!("go: import result {other:?} not supported"),
                    };
                    let _ = writeln!(body, "\t\tstack[0] = {enc}");
                }
                (Some((rid, okty)), true) => {
                    let size = self.size(&Type::Id(rid));
                    let TypeDefKind::Result(res) = &self.r.types[rid].kind else { unreachable!() };
                    let po = self.wit.sizes.payload_offset(Int::U8, [res.ok.as_ref(), res.err.as_ref()]).size_wasm32();
                    let _ = writeln!(body, "\t\tret := uint32(s[0])\n\t\tvar b [{size}]byte");
                    match okty.map(|t| self.dealias(&t)) {
                        Some(Type::Id(oid))
                            if matches!(self.r.types[oid].kind, TypeDefKind::Record(_) | TypeDefKind::Variant(_)) =>
                        {
                            self.need(oid, Mode::Store);
                            let _ = writeln!(body, "\t\tres, callErr := {call}\n\t\tif callErr == nil {{\n\t\t\tcallErr = a.store{}(ctx, b[{po}:], &res)\n\t\t}}", self.named(oid));
                        }
                        None => {
                            let _ = writeln!(body, "\t\tcallErr := {call}");
                        }
                        Some(other) => bail!("go: import ok type {other:?} not supported"),
                    }
                    let _ = writeln!(
                        body,
                        "\t\tif callErr != nil {{\n\t\t\tclear(b[:])\n\t\t\tb[0] = 1\n\
                         \t\t\tp, n, err := a.lowerString(ctx, strings.ToValidUTF8(callErr.Error(), \"\\uFFFD\"))\n\
                         \t\t\tif err != nil {{\n\t\t\t\tpanic(err)\n\t\t\t}}\n\
                         \t\t\tle.PutUint32(b[{po}:], p)\n\t\t\tle.PutUint32(b[{}:], n)\n\t\t}}\n\
                         \t\tif !a.mem.Write(ret, b[:]) {{\n\t\t\tpanic(abiErrorf(\"return area %#x is outside memory\", ret))\n\t\t}}",
                        po + 4
                    );
                }
                _ => bail!("go: import {} has an unsupported result shape", f.name),
            }
            let _ = writeln!(out, "\n// import{} is the host function of `{iface}.{}`.", pascal(&meth), f.name);
            let _ = writeln!(out, "func import{}(h worldImports) api.GoModuleFunc {{", pascal(&meth));
            out.push_str("\treturn func(ctx context.Context, mod api.Module, stack []uint64) {\n");
            if body.contains("a.") {
                out.push_str("\t\ta := abi{mem: mod.Memory(), mod: mod}\n");
            }
            out.push_str(&body);
            out.push_str("\t}\n}\n");
        }
        Ok(())
    }
}
