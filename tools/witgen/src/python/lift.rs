//! Lifting results out of the return area (`lift_F`).

use super::lower::*;
use super::*;

/// Lifting and the two ABI files.
impl Gen<'_> {
    pub(super) fn is_ptr_len(&self, t: &Type) -> bool {
        match t {
            Type::String => true,
            Type::Id(id) => matches!(self.kind(*id), TypeDefKind::List(_)),
            _ => false,
        }
    }
    pub(super) fn needs_post(&self, t: &Type) -> bool {
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
    pub(super) fn scalar_struct(f: &str, structs: &mut Vec<String>) -> String {
        let name = format!("_F_{}", f.replace('?', "bool"));
        let line = format!("{name} = struct.Struct(\"<{f}\")");
        if !structs.contains(&line) {
            structs.push(line)
        }
        name
    }
    /// Statements and the expression lifting a `t` at `base + off`.
    pub(super) fn lift(
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
                        // Each element a (pointer, length) pair of 8 bytes.
                        Type::String => format!(
                            "tuple(_str(m, *_F_II.unpack_from(m, _p{k} + _i{k} * 8)) for _i{k} in range(_n{k}))"
                        ),
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
                        (
                            "err",
                            r.err,
                            if matches!(r.err, Some(Type::String)) {
                                "!raise GuestError".into()
                            } else {
                                "!raise".into()
                            },
                        ),
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
    pub(super) fn lift_cases(
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
            let val = if how == "None" || how.starts_with("!raise ") && ty.is_none() {
                "None".to_string()
            } else if let Some(cls) = how.strip_prefix("!wrap ") {
                format!("{cls}({expr})")
            } else {
                expr
            };
            if how == "!raise" {
                body.push(format!("raise {val}"))
            } else if let Some(cls) = how.strip_prefix("!raise ") {
                body.push(format!("raise {cls}({val})"))
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
    pub(super) fn static_record(
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
    pub(super) fn lift_record(
        &self,
        id: TypeId,
        n: &mut usize,
        s: &mut Vec<String>,
        recs: &mut Vec<TypeId>,
    ) -> Result<String> {
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
}
