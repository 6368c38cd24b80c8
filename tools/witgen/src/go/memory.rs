//! Values to and from guest memory (params areas, list elements, return areas).

use super::*;

impl<'a> Gen<'a> {
    /// Statements storing `val` (an addressable Go value of `ty`) at `buf[off]`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store(
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
                    let (k, head) = self.lower_list(ind, t, val, field, ret)?;
                    format!(
                        "{head}{ind}\tle.PutUint32({buf}[{off}:], p{k})\n{ind}\tle.PutUint32({buf}[{o4}:], uint32(len({val})))\n{ind}}}",
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

    /// The part of lowering a list `val` (into a fresh guest area, element
    /// by element, written with `writeArea`) that flat and in-memory
    /// lowering share: returns the temporary's number `k` (the area's
    /// pointer is `p{k}`) and the statements, ending inside the `else` block
    /// where the caller places the (pointer, length) pair and closes it.
    pub(super) fn lower_list(
        &mut self,
        ind: &str,
        t: &Type,
        val: &str,
        field: &str,
        ret: &str,
    ) -> Result<(usize, String)> {
        let t = *t;
        let (size, align) = (self.size(&t), self.align(&t));
        let k = self.tmp();
        let r = self.recv();
        let e = leave(ret, &format!("withField(\"{}\", err)", snake(field)));
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
        Ok((
            k,
            format!(
                "if l{k}, err := {r}.listArea(len({val}), {size}); err != nil {{\n{ind}\t{e}\n{ind}}} else {{\n\
                 {ind}\tfor i{k} := range {val} {{\n{inner}{ind}\t}}\n\
                 {ind}\tp{k}, err := {r}.writeArea(ctx, {align}, l{k})\n{ind}\tif err != nil {{\n{ind}\t\t{e}\n{ind}\t}}\n"
            ),
        ))
    }

    /// Statements lifting the value of `ty` at `buf[off]` into `dst`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lift(
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
                        "if a{k}, err := {r}.listView(le.Uint32({buf}[{off}:]), le.Uint32({buf}[{o4}:]), {size}, {align}); err != nil {{\n{ind}\t{e}\n{ind}}} else {{\n\
                         {ind}\tl{k} := make([]{gt}, len(a{k})/{size})\n{ind}\tfor i{k} := range l{k} {{\n{inner}{ind}\t}}\n{ind}\t{dst} = l{k}\n{ind}}}",
                        o4 = at(off, 4),
                        e = leave(ret, "err"),
                        gt = self.go_type(&t)?,
                        align = self.align(&t)
                    )
                }
                other => bail!("go: cannot lift {other:?}"),
            },
            other => bail!("go: cannot lift {other:?}"),
        };
        let _ = writeln!(out, "{ind}{line}");
        Ok(())
    }
}
