//! Values to and from flat core values (export params, import params).

use super::*;

impl<'a> Gen<'a> {
    /// Statements appending the flat values of `val` to `s`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn flat_lower(
        &mut self,
        out: &mut String,
        ind: &str,
        ty: &Type,
        val: &str,
        field: &str,
        ret: &str,
    ) -> Result<()> {
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
                    let (k, head) = self.lower_list(ind, t, val, field, ret)?;
                    format!("{head}{ind}\ts = append(s, uint64(p{k}), uint64(len({val})))\n{ind}}}")
                }
                other => bail!("go: cannot lower {other:?}"),
            },
            other => bail!("go: cannot lower {other:?}"),
        };
        let _ = writeln!(out, "{ind}{line}");
        Ok(())
    }

    /// Statements lifting `ty` from the flat values in slice `s` into `dst`, consuming them.
    pub(super) fn lift_flat(&mut self, out: &mut String, ind: &str, ty: &Type, dst: &str, ret: &str) -> Result<()> {
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
    pub(super) fn lift_flat_expr(&mut self, out: &mut String, ind: &str, ty: &Type, ret: &str) -> Result<String> {
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

    pub(super) fn recv(&self) -> &'static str {
        if self.in_call {
            "in"
        } else {
            "a"
        }
    }
}

pub(super) fn value_type(t: WasmType) -> &'static str {
    match t {
        WasmType::I32 | WasmType::Pointer | WasmType::Length => "api.ValueTypeI32",
        WasmType::I64 | WasmType::PointerOrI64 => "api.ValueTypeI64",
        WasmType::F32 => "api.ValueTypeF32",
        WasmType::F64 => "api.ValueTypeF64",
    }
}
