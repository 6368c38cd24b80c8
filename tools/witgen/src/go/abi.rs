//! The ABI file: one `call<Func>` per export, their results, and offset helpers.

use super::*;

impl<'a> Gen<'a> {
    pub(super) fn abi_file(&mut self) -> Result<String> {
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
        let mut out = go_header();
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
    pub(super) fn owns_memory(&self, ty: &Type) -> bool {
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
    pub(super) fn go_results(&self, f: &Function) -> Result<(String, String)> {
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

    pub(super) fn export_fn(&mut self, out: &mut String, f: &Function) -> Result<()> {
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
        let (size, align) = (self.size(rt), self.align(rt));
        let _ = writeln!(
            out,
            "\tret := uint32(s[0])\n\tr, err := in.viewAligned(ret, {size}, {align})\n\tif err != nil {{\n\t\t{}\n\t}}",
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
    pub(super) fn zero_type(&self, ty: &Type) -> Result<Option<String>> {
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
pub(super) fn at(base: &str, k: usize) -> String {
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
pub(super) fn addr(val: &str) -> String {
    match val.strip_prefix("(*").and_then(|v| v.strip_suffix(')')) {
        Some(p) if !p.contains(['(', ')', ' ']) => p.to_string(),
        _ => format!("&{val}"),
    }
}

/// The statement that leaves with error expression `e` (`ret` holds `{}`).
pub(super) fn leave(ret: &str, e: &str) -> String {
    ret.replace("{}", e)
}

pub(super) fn tag_put(t: Int, buf: &str, off: &str, v: &str) -> String {
    match t {
        Int::U8 => format!("{buf}[{off}] = uint8({v})"),
        Int::U16 => format!("le.PutUint16({buf}[{off}:], uint16({v}))"),
        Int::U32 => format!("le.PutUint32({buf}[{off}:], uint32({v}))"),
        Int::U64 => format!("le.PutUint64({buf}[{off}:], uint64({v}))"),
    }
}

pub(super) fn tag_get(t: Int, buf: &str, off: &str) -> String {
    match t {
        Int::U8 => format!("uint64({buf}[{off}])"),
        Int::U16 => format!("uint64(le.Uint16({buf}[{off}:]))"),
        Int::U32 => format!("uint64(le.Uint32({buf}[{off}:]))"),
        Int::U64 => format!("le.Uint64({buf}[{off}:])"),
    }
}
