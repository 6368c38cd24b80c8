//! Lowering: struct formats per record level and the argument images (`lower_F`).

use super::*;

/// A WIT -> Python code builder for one lowering or lifting level.
#[derive(Default)]
pub(super) struct Level {
    pub(super) pre: Vec<String>,
    /// (offset, struct format, python expression)
    pub(super) leaves: Vec<(usize, String, String)>,
    pub(super) post: Vec<String>,
}

pub(super) fn indent(lines: Vec<String>, n: usize) -> Vec<String> {
    lines.iter().flat_map(|l| l.split('\n')).map(|l| format!("{}{l}", " ".repeat(n))).collect()
}

pub(super) fn fmt_size(f: &str) -> usize {
    match f {
        "?" | "B" | "b" => 1,
        "H" | "h" => 2,
        "I" | "i" | "f" => 4,
        _ => 8,
    }
}

/// Bytes covered by a struct format built by `pack_fmt` (after its `<`).
pub(super) fn fmt_total(f: &str) -> usize {
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

pub(super) fn fmt_of(t: &Type) -> Result<&'static str> {
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
    pub(super) fn pack_fmt(leaves: &mut [(usize, String, String)]) -> (usize, String) {
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
    pub(super) fn emit_level(&self, mut lv: Level, base: &str, structs: &mut Vec<String>) -> Vec<String> {
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
    pub(super) fn uid(n: &mut usize) -> usize {
        *n += 1;
        *n
    }

    /// Lower value `v` of type `t` into memory at `base + off`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower(
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
    pub(super) fn lower_flat(
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
                TypeDefKind::Option(inner) => {
                    let cases = vec![(None, "None".to_string(), None), (Some(inner), String::new(), None)];
                    self.lower_flat_cases(t, v, &cases, slot, lv, n, structs)?;
                }
                TypeDefKind::Variant(var) => {
                    let mut cases = Vec::new();
                    for case in &var.cases {
                        let cls = self.case_class(*id, case);
                        let own =
                            !matches!(case.ty, Some(Type::Id(x)) if matches!(self.kind(x), TypeDefKind::Record(_)));
                        let field = (case.ty.is_some() && own).then(|| self.case_field(*id, &case.name).to_string());
                        cases.push((case.ty, cls, field));
                    }
                    self.lower_flat_cases(t, v, &cases, slot, lv, n, structs)?;
                }
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

    /// Flat lowering of a variant or option param (canonical ABI: the case
    /// index in one slot, then the joined payload slots). The case is known
    /// only at run time, so each case's branch zeroes the width and writes
    /// its own payload in its own natural format: a narrower integer in a
    /// wider joined slot is zero-extended, a float's bits are its own (what
    /// the joined slot's reinterpretation reads). `cases`: (payload type,
    /// Python class to test with isinstance (empty: any non-None value; the
    /// class "None": the value is None), attribute holding the payload (None:
    /// the value itself)).
    #[allow(clippy::too_many_arguments)]
    fn lower_flat_cases(
        &self,
        t: &Type,
        v: &str,
        cases: &[(Option<Type>, String, Option<String>)],
        slot: &mut usize,
        lv: &mut Level,
        n: &mut usize,
        structs: &mut Vec<String>,
    ) -> Result<()> {
        let width = {
            let mut storage = [WasmType::I32; 64];
            let mut f = wit_parser::abi::FlatTypes::new(&mut storage);
            if !self.w.resolve.push_flat(t, &mut f) {
                bail!("flat shape of more than 64 values");
            }
            f.to_vec().len()
        };
        let k = Self::uid(n);
        let first = *slot;
        lv.post.push(format!("_w{k} = {v}"));
        for (i, (ty, cls, field)) in cases.iter().enumerate() {
            let test = match cls.as_str() {
                "None" => format!("_w{k} is None"),
                "" => format!("_w{k} is not None"),
                c => format!("isinstance(_w{k}, {c})"),
            };
            lv.post.push(format!("{} {test}:", if i == 0 { "if" } else { "elif" }));
            let mut sub = Level::default();
            let mut at = first;
            sub.leaves.push((FLAT + 8 * at, "Q".into(), i.to_string()));
            at += 1;
            if let Some(ty) = ty {
                let val = match field {
                    Some(f) => format!("_w{k}.{f}"),
                    None => format!("_w{k}"),
                };
                self.lower_flat(ty, &val, &mut at, &mut sub, n, structs)?;
            }
            for j in at..first + width {
                sub.leaves.push((FLAT + 8 * j, "Q".into(), "0".into()));
            }
            lv.post.extend(indent(self.emit_level(sub, "s", structs), 4));
        }
        if let (false, Type::Id(id)) = (cases.iter().any(|c| c.1.is_empty()), t) {
            let name = self.name(*id);
            lv.post.push(format!("else:\n    raise c.wrong_type({:?}, _w{k}, {:?})", snake(&name), pascal(&name)));
        }
        *slot = first + width;
        Ok(())
    }
}
