//! `types.py`: enums, records, variant cases and aliases, with their checks.
//!
//! A record (or a variant case with a payload that is not a record) is a
//! plain class with `__slots__`, not a dataclass: importing `dataclasses`
//! (which imports `inspect`) and building ~60 dataclasses cost about half of
//! the package's own start-up. The class keeps a frozen dataclass's
//! behaviour: keyword or positional `__init__` (checked), `__match_args__`,
//! `__eq__`/`__hash__` over the fields, a dataclass-like `__repr__`,
//! `FrozenInstanceError` on assignment, pickling and copying (`_Frozen`).

use super::*;

/// One field of a generated class.
struct Field {
    name: String,
    ty: Type,
    /// its docstring (`None` for a variant case's payload)
    doc: Option<String>,
    /// `""`, `" = None"` or `" = False"`
    default: &'static str,
}

/// (class, variant, case, doc) of a variant case with a class of its own.
type CaseUse = (String, String, String, String);

/// The base of every generated class: immutability, `repr`, pickling.
const FROZEN: &str = r#"_set = object.__setattr__


def _frozen(message: str) -> Exception:
    from dataclasses import FrozenInstanceError  # imported on a misuse only: no cost at start

    return FrozenInstanceError(message)


class _Frozen:
    """Immutable, set once by a checked `__init__`; compared, hashed, shown
    and pickled by its fields (its `__slots__`, in order). The generated
    classes override `__eq__` and `__hash__` with field-by-field versions
    (faster); the package's own frozen classes use these."""

    __slots__ = ()

    def _values(self) -> tuple[object, ...]:
        names: tuple[str, ...] = self.__slots__
        return tuple(getattr(self, n) for n in names)

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise _frozen(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        names: tuple[str, ...] = self.__slots__
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self) -> tuple[object, ...]:
        return (self.__class__, self._values())
"#;

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
                // Numbers are converted (an int to its float): the whole tuple at once.
                TypeDefKind::List(Type::F32 | Type::F64) => {
                    out.push(set(format!("tuple(c.number({path:?}, x) for x in c.sequence({path:?}, {v}))")))
                }
                TypeDefKind::List(inner) => {
                    out.push(set(format!("c.sequence({path:?}, {v})")));
                    let mut sub = Vec::new();
                    self.check(inner, "item", path, "", &mut sub)?;
                    if sub.iter().any(|l| l.starts_with("_set")) {
                        bail!("list elements of {path} need conversion")
                    }
                    out.push(format!("for item in {v}:"));
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
        o += "\"\"\"Typed mirrors of the WIT types (webhook:retry-policy): str enums,\nfrozen slotted classes checked on construction, variants as unions.\"\"\"\n\n";
        o += "from __future__ import annotations\n\nfrom enum import Enum\nfrom typing import Optional, Union\n\nfrom .. import _checks as c\n";
        let (mut all_enums, mut all_classes, mut aliases) = (String::new(), String::new(), String::new());
        let mut errs = String::new();
        let shared = self.case_classes()?;
        let mut emitted: Vec<String> = Vec::new();
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
                    let fields: Vec<Field> = r
                        .fields
                        .iter()
                        .zip(defaults)
                        .map(|(f, dflt)| Field {
                            name: snake(&f.name),
                            ty: f.ty,
                            doc: Some(doc(&f.docs)),
                            default: match (dflt, f.ty == Type::Bool) {
                                (false, _) => "",
                                (true, true) => " = False",
                                (true, false) => " = None",
                            },
                        })
                        .collect();
                    let d = if d.is_empty() { name.clone() } else { d };
                    self.frozen_class(&cls, &d, &snake(&name), &fields, classes)?;
                }
                TypeDefKind::Variant(v) => {
                    let mut members = Vec::new();
                    for case in &v.cases {
                        let cc = self.case_class(id, case);
                        let own =
                            !matches!(case.ty, Some(Type::Id(t)) if matches!(self.kind(t), TypeDefKind::Record(_)));
                        if own && !emitted.contains(&cc) {
                            let users: Vec<String> = shared
                                .iter()
                                .filter(|(c, ..)| *c == cc)
                                .map(|(_, v, case, d)| format!("{d} (case `{case}` of `{v}`)"))
                                .collect();
                            let d = users.join("; ");
                            let fields: Vec<Field> = case
                                .ty
                                .iter()
                                .map(|t| Field {
                                    name: self.case_field(id, &case.name).into(),
                                    ty: *t,
                                    doc: None,
                                    default: "",
                                })
                                .collect();
                            self.frozen_class(&cc, &d, &snake(&name), &fields, classes)?;
                            emitted.push(cc.clone());
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
        o += &format!("from .errors import {}\n\n{FROZEN}", reexport.join(", "));
        let mut e = header("#", "python", OUT);
        e += "\"\"\"The WIT record used as an error (an exception class) and its enums. Imports\nnothing from the package, so `_checks` can raise it without an import cycle.\"\"\"\n\nfrom __future__ import annotations\n\nfrom enum import Enum\n";
        Ok((o + &all_enums + &all_classes + "\n" + &aliases, e + &errs))
    }

    /// A frozen class (`_Frozen`) with `fields`: slots, match args, the checked
    /// `__init__` (`owner` names the checked paths: `owner.field`), eq and hash.
    fn frozen_class(&self, cls: &str, d: &str, owner: &str, fields: &[Field], out: &mut String) -> Result<()> {
        let tup = |items: Vec<String>| match items.len() {
            1 => format!("({},)", items[0]),
            _ => format!("({})", items.join(", ")),
        };
        let each = |f: &dyn Fn(&str) -> String| tup(fields.iter().map(|x| f(&x.name)).collect());
        let names = each(&|n| format!("{n:?}"));
        writeln!(
            out,
            "\n\nclass {cls}(_Frozen):\n    \"\"\"{d}\"\"\"\n\n    __slots__ = {names}\n    __match_args__ = {names}"
        )?;
        if !fields.is_empty() {
            writeln!(out)?;
        }
        let (mut params, mut body) = (String::new(), Vec::new());
        for f in fields {
            let t = self.py_type(&f.ty);
            writeln!(out, "    {}: {t}", f.name)?;
            if let Some(fd) = &f.doc {
                writeln!(out, "    \"\"\"{fd}\"\"\"")?;
            }
            write!(params, ", {}: {t}{}", f.name, f.default)?;
            let mut checks = Vec::new();
            self.check(&f.ty, &f.name, &format!("{owner}.{}", f.name), &f.name, &mut checks)?;
            if !checks.iter().any(|l| l.starts_with(&format!("_set(self, {:?}", f.name))) {
                body.push(format!("_set(self, {:?}, {})", f.name, f.name))
            }
            body.extend(checks);
        }
        if body.is_empty() {
            body.push("pass".into())
        }
        writeln!(out, "\n    def __init__(self{params}) -> None:")?;
        for l in &body {
            writeln!(out, "        {l}")?;
        }
        let (mine, theirs) = (each(&|n| format!("self.{n}")), each(&|n| format!("other.{n}")));
        let same = if fields.is_empty() { "True".to_string() } else { format!("{mine} == {theirs}") };
        writeln!(out, "\n    def __eq__(self, other: object) -> bool:\n        if other.__class__ is self.__class__:\n            return {same}\n        return NotImplemented\n\n    def __hash__(self) -> int:\n        return hash({mine})")?;
        Ok(())
    }

    /// (class, variant, case, doc) of every variant case with a class of its own
    /// (its payload is not a record). A payload-less case several variants
    /// share (`send`) is one class; any other shared name is an error.
    fn case_classes(&self) -> Result<Vec<CaseUse>> {
        let (mut shared, mut with_payload): (Vec<CaseUse>, Vec<String>) = (vec![], vec![]);
        for &id in &self.types {
            let TypeDefKind::Variant(v) = &self.w.resolve.types[id].kind else { continue };
            for case in &v.cases {
                if matches!(case.ty, Some(Type::Id(t)) if matches!(self.kind(t), TypeDefKind::Record(_))) {
                    continue;
                }
                let cc = self.case_class(id, case);
                if let Some((_, other, _, _)) = shared.iter().find(|(c, ..)| *c == cc) {
                    if case.ty.is_some() || with_payload.contains(&cc) {
                        bail!("case class {cc} of {} is also a case of {other}, with a payload", self.name(id))
                    }
                }
                if case.ty.is_some() {
                    with_payload.push(cc.clone())
                }
                shared.push((cc, self.name(id), case.name.clone(), doc(&case.docs)))
            }
        }
        Ok(shared)
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
