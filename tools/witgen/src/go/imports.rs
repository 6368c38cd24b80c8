//! The per-type helpers and the imports as wazero host functions.

use super::*;

impl<'a> Gen<'a> {
    /// The helper of one named type in one mode.
    pub(super) fn helper(&mut self, out: &mut String, id: TypeId, mode: Mode) -> Result<()> {
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

    pub(super) fn imports(&mut self, out: &mut String, imports: &[(String, String, &Function)]) -> Result<()> {
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
                    let (size, align) = (self.size(&Type::Id(rid)), self.align(&Type::Id(rid)));
                    let TypeDefKind::Result(res) = &self.r.types[rid].kind else { unreachable!() };
                    let po = self.wit.sizes.payload_offset(Int::U8, [res.ok.as_ref(), res.err.as_ref()]).size_wasm32();
                    let _ = writeln!(
                        body,
                        "\t\tret := uint32(s[0])\n\t\tif ret%{align} != 0 {{\n\t\t\tpanic(abiErrorf(\"return area %#x is not aligned to {align}\", ret))\n\t\t}}\n\t\tvar b [{size}]byte"
                    );
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
