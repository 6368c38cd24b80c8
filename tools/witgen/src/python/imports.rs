//! The world's imports (`clock`, `budget-store`) as host functions: appended
//! to `abi.py`. Per import function, `import_F(h, x, *flat)` lifts the flat
//! core arguments into the typed values (u64 and u32 from wasmtime-py's
//! signed ints, strings read from guest memory), calls the host's
//! `h.<iface>_<name>(...)`, and lowers its answer: a scalar result is
//! returned (signed, as wasmtime-py passes an i64), a `result<T, string>` is
//! written into the guest's return area (the last flat argument); the error
//! case's string goes into a `cabi_realloc` block of the guest (`x.alloc`).
//! A host that raises, or answers a value that is not a `T`, is the error
//! case with its message: an import whose result can carry an error never
//! traps for the host's failure.

use super::lower::{fmt_of, fmt_total};
use super::*;

const M32: &str = "0xFFFFFFFF";
const M64: &str = "0xFFFFFFFFFFFFFFFF";

impl Gen<'_> {
    fn world_imports(&self) -> Vec<(String, String, &Function)> {
        let world = &self.w.resolve.worlds[self.w.world];
        let mut out = Vec::new();
        for item in world.imports.values() {
            if let WorldItem::Interface { id, .. } = item {
                let iface = &self.w.resolve.interfaces[*id];
                let module = self.w.resolve.id_of(*id).unwrap_or_default();
                let iname = iface.name.clone().unwrap_or_default();
                for f in iface.functions.values() {
                    out.push((module.clone(), iname.clone(), f));
                }
            }
        }
        out
    }

    /// An expression of the value of `t` from the flat args `a[i..]` (advances `i`).
    fn lift_flat_expr(&self, t: &Type, i: &mut usize) -> Result<String> {
        let a = |i: &mut usize| {
            *i += 1;
            format!("a[{}]", *i - 1)
        };
        Ok(match t {
            Type::Bool => format!("{} != 0", a(i)),
            Type::U8 => format!("{} & 0xFF", a(i)),
            Type::U16 => format!("{} & 0xFFFF", a(i)),
            Type::U32 => format!("{} & {M32}", a(i)),
            Type::U64 => format!("{} & {M64}", a(i)),
            Type::F32 | Type::F64 => a(i),
            Type::String => {
                let (p, n) = (a(i), a(i));
                format!("_str(x.view(), {p} & {M32}, {n} & {M32})")
            }
            Type::Id(id) => match self.kind(*id) {
                TypeDefKind::Enum(_) => {
                    format!("_case(_CASES_{}, {})", snake(&self.name(*id)).to_uppercase(), a(i))
                }
                TypeDefKind::Record(r) => {
                    let mut fs = Vec::new();
                    for f in &r.fields {
                        fs.push(self.lift_flat_expr(&f.ty, i)?);
                    }
                    format!("_mk_{}({})", snake(&self.name(*id)), fs.join(", "))
                }
                TypeDefKind::Type(t) => self.lift_flat_expr(t, i)?,
                other => bail!("python imports: no flat lifting of {other:?}"),
            },
            other => bail!("python imports: no flat lifting of {other:?}"),
        })
    }

    /// Struct leaves (offset, format, expression) of a record of scalars `t` held in `v`.
    fn store_leaves(&self, t: &Type, v: &str, off: usize, out: &mut Vec<(usize, String, String)>) -> Result<()> {
        match t {
            Type::Id(id) => match self.kind(*id) {
                TypeDefKind::Record(r) => {
                    let tys: Vec<Type> = r.fields.iter().map(|f| f.ty).collect();
                    for (f, o) in r.fields.iter().zip(self.offsets(&tys)) {
                        self.store_leaves(&f.ty, &format!("{v}.{}", snake(&f.name)), off + o, out)?;
                    }
                }
                TypeDefKind::Enum(_) => {
                    out.push((off, "B".into(), format!("_IDX_{}[{v}]", snake(&self.name(*id)).to_uppercase())))
                }
                TypeDefKind::Type(t) => self.store_leaves(t, v, off, out)?,
                other => bail!("python imports: cannot store {other:?}"),
            },
            t => out.push((off, fmt_of(t)?.to_string(), v.to_string())),
        }
        Ok(())
    }

    pub(super) fn imports(&self) -> Result<String> {
        let wt = |w: &WasmType| match w {
            WasmType::I64 | WasmType::PointerOrI64 => "i64",
            WasmType::F32 => "f32",
            WasmType::F64 => "f64",
            _ => "i32",
        };
        let mut o = String::from("\n\n# The world's imports: host functions (see the module docs of witgen's python/imports.rs).\n\n\nclass Guest(Protocol):\n    def view(self) -> memoryview: ...\n    def alloc(self, size: int, align: int) -> int: ...\n\n\ndef _case(cases: tuple[Any, ...], i: int) -> Any:\n    if not 0 <= i < len(cases):\n        raise Malformed(f\"enum discriminant {i}\")\n    return cases[i]\n\n\ndef _signed64(v: int) -> int:\n    return v - (1 << 64) if v >= 1 << 63 else v\n\n\ndef _reason(e: BaseException) -> str:\n    try:\n        text = f\"{type(e).__name__}: {e}\"\n    except Exception:\n        text = type(e).__name__\n    return text[:500]\n");
        let mut proto = String::from(
            "\n\nclass Host(Protocol):\n    \"\"\"What the host supplies for the world's imports.\"\"\"\n",
        );
        let mut table = String::from("\n\nclass Import(NamedTuple):\n    \"\"\"One imported core function: names, core signature, glue.\"\"\"\n\n    module: str\n    name: str\n    params: tuple[str, ...]\n    results: tuple[str, ...]\n    glue: Callable[..., Any]\n\n\nIMPORTS: tuple[Import, ...] = (\n");
        let mut structs = String::new();
        for (module, iface, f) in self.world_imports() {
            let sig = self.w.resolve.wasm_signature(AbiVariant::GuestImport, f);
            if sig.indirect_params {
                bail!("python imports: {} passes its params indirectly (not supported)", f.name);
            }
            let meth = format!("{}_{}", snake(&iface), snake(&f.name));
            let fname = format!("import_{meth}");
            let params: Vec<String> =
                f.params.iter().map(|p| format!("{}: {}", snake(&p.name), self.py_type(&p.ty))).collect();
            let mut i = 0;
            let mut args = Vec::new();
            for p in &f.params {
                args.push(self.lift_flat_expr(&p.ty, &mut i)?);
            }
            let mut body = format!(
                "\n\ndef {fname}(h: Host, x: Guest, *a: Any) -> Any:\n    \"\"\"`{module}#{}`.\"\"\"\n",
                f.name
            );
            let call = format!("h.{meth}({})", args.join(", "));
            let call_args = format!("h.{meth}(*args)");
            let ret;
            match f.result.as_ref() {
                None => {
                    ret = "None".to_string();
                    writeln!(body, "    {call}")?;
                }
                Some(Type::Id(rid)) if matches!(self.kind(*rid), TypeDefKind::Result(_)) => {
                    let TypeDefKind::Result(res) = self.kind(*rid) else { unreachable!() };
                    if res.err != Some(Type::String) || !sig.retptr {
                        bail!("python imports: {}: only result<T, string> through a return area", f.name);
                    }
                    let ok = res.ok.context("python imports: result<_, string> needs an ok type")?;
                    let (size, po) = (self.size(&Type::Id(*rid)), self.payload_off(Int::U8, &[res.ok, res.err]));
                    let okcls = self.py_type(&ok);
                    ret = okcls.clone();
                    let mut leaves = Vec::new();
                    self.store_leaves(&ok, "v", po, &mut leaves)?;
                    let (start, fm) = Self::pack_fmt(&mut leaves);
                    let up = meth.to_uppercase();
                    let vals: Vec<&str> = leaves.iter().map(|l| l.2.as_str()).collect();
                    writeln!(structs, "_OK_{up} = struct.Struct({fm:?})\n_ERR_{up} = struct.Struct(\"<II\")")?;
                    writeln!(
                        body,
                        "    ret = a[{i}] & {M32}\n    if ret % {al} or ret + {size} > len(x.view()):\n        raise Malformed(f\"return area {{ret:#x}} misaligned or out of bounds\")\n    args = ({},)\n    try:\n        v = {call_args}\n        if not isinstance(v, {okcls}):\n            raise TypeError(f\"expected a {okcls}, got {{type(v).__name__}}\")\n        ok = _OK_{up}.pack({})\n    except Exception as e:  # the host's failure is the error case, never a trap\n        msg = _reason(e).encode(\"utf-8\", \"replace\")\n        p = x.alloc(len(msg), 1)\n        m = x.view()\n        m[p:p + len(msg)] = msg\n        m[ret] = 1\n        _ERR_{up}.pack_into(m, ret + {po}, p, len(msg))\n        return None\n    m = x.view()\n    m[ret] = 0\n    m[ret + {start}:ret + {}] = ok\n    return None",
                        args.join(", "),
                        vals.join(", "),
                        start + fmt_total(&fm),
                        al = self.align(&Type::Id(*rid)),
                    )?;
                }
                Some(t) => {
                    let v = match t {
                        Type::U64 => format!("_signed64(c.uint(\"{}\", {call}))", f.name),
                        Type::U32 | Type::U16 | Type::U8 => {
                            let max = (1u128 << (self.size(t) * 8)) - 1;
                            format!("c.uint(\"{}\", {call}, {max})", f.name)
                        }
                        Type::F64 | Type::F32 => format!("c.number(\"{}\", {call})", f.name),
                        other => bail!("python imports: result {other:?} not supported"),
                    };
                    ret = self.py_type(t);
                    writeln!(body, "    return {v}")?;
                }
            }
            writeln!(
                proto,
                "\n    def {meth}(self{}{}) -> {ret}: ...",
                if params.is_empty() { "" } else { ", " },
                params.join(", ")
            )?;
            let ps: Vec<String> = sig.params.iter().map(|w| format!("{:?}, ", wt(w))).collect();
            let rs: Vec<String> = sig.results.iter().map(|w| format!("{:?}, ", wt(w))).collect();
            writeln!(
                table,
                "    Import({module:?}, {:?}, ({}), ({}), {fname}),",
                f.name,
                ps.concat().trim_end(),
                rs.concat().trim_end()
            )?;
            o += &body;
        }
        table += ")\n";
        Ok(format!("{o}\n\n{structs}{proto}{table}"))
    }
}
