//! `types.py`: enums, records, variant cases and aliases, with their `__post_init__` checks.

use super::*;

impl Gen<'_> {
    /// Lines checking `v` (a field value) in `__post_init__`.
    pub(super) fn check(&self, t: &Type, v: &str, path: &str, attr: &str, out: &mut Vec<String>) -> Result<()> {
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

    pub(super) fn types(&self) -> Result<(String, String)> {
        let mut o = header("#", "python", OUT);
        o += "\"\"\"Typed mirrors of the WIT types (webhook:retry-policy): str enums,\nfrozen slots dataclasses checked on construction, variants as unions.\"\"\"\n\n";
        o += "from __future__ import annotations\n\nfrom dataclasses import dataclass\nfrom enum import Enum\nfrom typing import Optional, Union\n\nfrom .. import _checks as c\n";
        let (mut all_enums, mut all_classes, mut aliases) = (String::new(), String::new(), String::new());
        let mut errs = String::new();
        let err_names = self.error_types();
        for &id in &self.types {
            let td = &self.w.resolve.types[id];
            let name = td.name.clone().unwrap_or_default();
            let (cls, d) = (pascal(&name), doc(&td.docs));
            let (mut enums_l, mut classes_l) = (String::new(), String::new());
            let (enums, classes) = (&mut enums_l, &mut classes_l);
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
            if err_names.contains(&id) {
                errs += &(enums_l + &classes_l);
            } else {
                all_enums += &enums_l;
                all_classes += &classes_l;
            }
        }
        let names: Vec<String> = err_names.iter().map(|id| pascal(&self.name(*id))).collect();
        let reexport: Vec<String> = names.iter().map(|n| format!("{n} as {n}")).collect();
        o += &format!("from .errors import {}\n\n_set = object.__setattr__\n", reexport.join(", "));
        let mut e = header("#", "python", OUT);
        e += "\"\"\"The WIT record used as an error (an exception class) and its enums. Imports\nnothing from the package, so `_checks` can raise it without an import cycle.\"\"\"\n\nfrom __future__ import annotations\n\nfrom enum import Enum\n";
        Ok((o + &all_enums + &all_classes + "\n" + &aliases, e + &errs))
    }

    /// The error records and the enums their fields use, in type order.
    fn error_types(&self) -> Vec<TypeId> {
        let mut out = Vec::new();
        for &id in &self.types {
            if self.errors.contains(&id) {
                if let TypeDefKind::Record(r) = self.kind(id) {
                    for f in &r.fields {
                        if let Type::Id(t) = f.ty {
                            if matches!(self.kind(t), TypeDefKind::Enum(_)) && !out.contains(&dealias(self.w, t)) {
                                out.push(dealias(self.w, t))
                            }
                        }
                    }
                }
                out.push(id)
            }
        }
        out
    }
}
