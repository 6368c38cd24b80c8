//! The two ABI files: `abi.py` (per-function lower/lift glue) and `adapter.wat`.

use super::lower::*;
use super::*;

impl Gen<'_> {
    pub(super) fn funcs(&self) -> Vec<&Function> {
        self.w.resolve.interfaces[self.policy].functions.values().collect()
    }
    pub(super) fn core_name(&self, f: &Function) -> String {
        format!("{}#{}", self.w.resolve.id_of(self.policy).unwrap_or_default(), f.name)
    }

    pub(super) fn abi(&self) -> Result<String> {
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
        o += "\nclass Scratch(Protocol):\n    mem: memoryview\n    scratch: int\n    limit: int\n\n\nclass Grow(Exception):\n    \"\"\"The scratch block is too small: grow it to hold `need` - scratch bytes and lower again.\"\"\"\n\n    def __init__(self, need: int) -> None:\n        self.need = need\n\n\nclass Malformed(Exception):\n    \"\"\"The guest returned bytes that are not a value of the result type.\"\"\"\n\n\nclass GuestError(Exception):\n    \"\"\"A function's `result<_, string>` error case: the guest's message.\"\"\"\n\n\n_new = object.__new__\n_FX: dict[int, struct.Struct] = {}\n";
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
                        // (`_c_<param>`: one variable per parameter, each of its own type)
                        Some((cache, size)) => images.push(format!(
                            "_c_{v} = _IMG_{cache}.get(id({v}))\nif _c_{v} is None or _c_{v}[0] is not {v}:\n    _c_{v} = _image_{cache}({v})\nm[a + {o}:a + {}] = _c_{v}[1]", o + size)),
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
        Ok(o + &structs.join("\n") + "\n" + &helpers + &images + &lifts + &body + &table + &self.imports()?)
    }
    /// For a param that is a record of scalars only (frozen, so its image
    /// never changes): the name of a per-object image cache (emitted once
    /// into `caches`) and the image size; None for any other type.
    pub(super) fn image_of(
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

    pub(super) fn result_py(&self, t: &Type) -> String {
        if let Type::Id(id) = t {
            if let TypeDefKind::Result(r) = self.kind(*id) {
                return r.ok.as_ref().map(|t| self.py_type(t)).unwrap_or_else(|| "None".into());
            }
        }
        self.py_type(t)
    }
    /// Cheap top-level checks of one argument (records were checked when built).
    pub(super) fn arg_check(&self, t: &Type, v: &str) -> Vec<String> {
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

    pub(super) fn adapter(&self) -> Result<String> {
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
