//! Emitter for the Node host: `types.d.cts`, the TypeScript mirrors of the
//! `types` interface in the shapes the npm package speaks — the
//! conformance contract's JSON (snake_case fields and enum cases, integer
//! milliseconds as numbers, `null` for none), not the canonical ABI's
//! (camelCase, bigint, `{tag, val}`), which is what jco would emit.
//!
//! Mechanical rules:
//!
//! * enum -> a union of snake_case string literals;
//! * record -> an interface with snake_case fields; integers are `N`, a
//!   type parameter defaulting to `number`, on every record an input can
//!   reach (`N = Int` there: a number or a bigint), plain `number` on
//!   output-only records; `option<T>` is `field?: T | null` on input
//!   records and `field: T | null` on output-only ones;
//! * which records are inputs follows from the `policy` interface's
//!   function parameters; outputs from its results.
//!
//! The contract spells four variants and two records its own way (a
//! decision is `{stop_reason, disable_endpoint, retry | dead_letter}`, a
//! transport error `{error_kind}`, ...). Those encodings are declared in
//! [`ENCODED`] and checked against the WIT: if a case or field they rely
//! on changes, generation fails instead of drifting.

use std::collections::BTreeSet;
use std::fmt::Write;

use anyhow::{bail, Context, Result};
use wit_parser::{Docs, Field, Interface, Type, TypeDefKind, TypeId};

use crate::wit::{header, Wit};
use crate::Generated;

/// Output file, relative to the output directory (`host-examples/node/lib`).
const FILE: &str = "types.d.cts";

/// Types of the `types` interface that the npm package does not mirror:
/// its errors are the `PolicyError` class, and its documents are read from
/// the document format, not from the validated WIT record.
const SKIPPED: &[&str] = &["policy-error", "policy-document", "event-class"];

/// Fields typed narrower than their WIT type: (record, field, TS type).
const FIELD_TYPES: &[(&str, &str, &str)] = &[
    // A dead letter never says `delivered`.
    ("dead-letter", "stop-reason", "DeadLetterReason"),
];

/// WIT types whose JS shape is the contract's own (see the module docs).
const ENCODED: &[&str] =
    &["stop-reason", "attempt-outcome", "stop", "decision", "store-reply", "resumption", "admission"];

fn snake(name: &str) -> String {
    name.replace('-', "_")
}

fn pascal(name: &str) -> String {
    name.split('-').map(|w| w[..1].to_uppercase() + &w[1..]).collect()
}

/// `/** ... */` from WIT docs, indented by `indent`.
fn jsdoc(out: &mut String, docs: &Docs, indent: &str) {
    let Some(text) = docs.contents.as_deref().map(str::trim).filter(|t| !t.is_empty()) else { return };
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{indent}/** {} */", lines[0]);
    } else {
        let _ = writeln!(out, "{indent}/**");
        for l in lines {
            let _ = writeln!(out, "{indent} *{}{l}", if l.is_empty() { "" } else { " " });
        }
        let _ = writeln!(out, "{indent} */");
    }
}

struct Emitter<'a> {
    wit: &'a Wit,
    types: &'a Interface,
    /// Types reachable from a parameter of a `policy` function.
    inputs: BTreeSet<TypeId>,
    /// Types that contain an integer (so take the `N` parameter when inputs).
    integral: BTreeSet<TypeId>,
    out: String,
}

impl<'a> Emitter<'a> {
    fn id(&self, name: &str) -> Result<TypeId> {
        self.types
            .types
            .get(name)
            .copied()
            .with_context(|| format!("wit: type `{name}` not found in interface `types`"))
    }

    fn kind(&self, id: TypeId) -> &'a TypeDefKind {
        &self.wit.resolve.types[id].kind
    }

    fn name(&self, id: TypeId) -> &'a str {
        self.wit.resolve.types[id].name.as_deref().unwrap_or("")
    }

    fn reach(&self, ty: &Type, seen: &mut BTreeSet<TypeId>) {
        let Type::Id(id) = ty else { return };
        if !seen.insert(*id) {
            return;
        }
        match self.kind(*id) {
            TypeDefKind::Record(r) => r.fields.iter().for_each(|f| self.reach(&f.ty, seen)),
            TypeDefKind::Variant(v) => v.cases.iter().filter_map(|c| c.ty.as_ref()).for_each(|t| self.reach(t, seen)),
            TypeDefKind::Option(t) | TypeDefKind::List(t) | TypeDefKind::Type(t) => self.reach(t, seen),
            TypeDefKind::Result(r) => r.ok.iter().chain(r.err.iter()).for_each(|t| self.reach(t, seen)),
            _ => {}
        }
    }

    fn has_int(&self, ty: &Type, depth: usize) -> bool {
        match ty {
            Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::S8 | Type::S16 | Type::S32 | Type::S64 => true,
            Type::Id(id) if depth < 16 => match self.kind(*id) {
                TypeDefKind::Record(r) => r.fields.iter().any(|f| self.has_int(&f.ty, depth + 1)),
                TypeDefKind::Variant(v) => {
                    v.cases.iter().filter_map(|c| c.ty.as_ref()).any(|t| self.has_int(t, depth + 1))
                }
                TypeDefKind::Option(t) | TypeDefKind::List(t) | TypeDefKind::Type(t) => self.has_int(t, depth + 1),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether `id` is declared with the `N` type parameter.
    fn generic(&self, id: TypeId) -> bool {
        self.inputs.contains(&id) && self.integral.contains(&id)
    }

    /// TS name of a named type, with `<N>` when `generic_ctx` and it takes one.
    fn reference(&self, id: TypeId, generic_ctx: bool) -> String {
        let base = pascal(self.name(id));
        if generic_ctx && self.generic(id) {
            format!("{base}<N>")
        } else {
            base
        }
    }

    fn ts(&self, ty: &Type, generic_ctx: bool) -> Result<String> {
        Ok(match ty {
            Type::Bool => "boolean".into(),
            Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::S8 | Type::S16 | Type::S32 | Type::S64 => {
                if generic_ctx { "N" } else { "number" }.into()
            }
            Type::F32 | Type::F64 => "number".into(),
            Type::Char | Type::String => "string".into(),
            Type::Id(id) => match self.kind(*id) {
                _ if self.wit.resolve.types[*id].name.is_some() => self.reference(*id, generic_ctx),
                TypeDefKind::List(t) => format!("{}[]", self.ts(t, generic_ctx)?),
                TypeDefKind::Option(t) => format!("{} | null", self.ts(t, generic_ctx)?),
                TypeDefKind::Type(t) => self.ts(t, generic_ctx)?,
                other => bail!("wit: anonymous {} has no TypeScript mirror", other.as_str()),
            },
            Type::ErrorContext => bail!("wit: error-context has no TypeScript mirror"),
        })
    }

    fn params(&self, id: TypeId) -> &'static str {
        if self.generic(id) {
            "<N extends Int = number>"
        } else {
            ""
        }
    }

    fn field(&mut self, record: TypeId, f: &Field) -> Result<()> {
        let generic = self.generic(record);
        jsdoc(&mut self.out, &f.docs, "  ");
        let (optional, ty) = match &f.ty {
            Type::Id(id)
                if matches!(self.kind(*id), TypeDefKind::Option(_)) && self.wit.resolve.types[*id].name.is_none() =>
            {
                let TypeDefKind::Option(inner) = self.kind(*id) else { unreachable!() };
                (self.inputs.contains(&record), format!("{} | null", self.ts(inner, generic)?))
            }
            t => (false, self.ts(t, generic)?),
        };
        let rname = self.name(record);
        let ty = FIELD_TYPES.iter().find(|(r, n, _)| *r == rname && *n == f.name).map_or(ty, |(_, _, t)| t.to_string());
        let _ = writeln!(self.out, "  {}{}: {ty};", snake(&f.name), if optional { "?" } else { "" });
        Ok(())
    }

    fn record(&mut self, id: TypeId, fields: &[Field], extends: Option<&str>, skip: &[&str]) -> Result<()> {
        jsdoc(&mut self.out, &self.wit.resolve.types[id].docs, "");
        let ext = extends.map(|e| format!(" extends {e}")).unwrap_or_default();
        let _ = writeln!(self.out, "export interface {}{}{ext} {{", pascal(self.name(id)), self.params(id));
        for f in fields.iter().filter(|f| !skip.contains(&f.name.as_str())) {
            self.field(id, f)?;
        }
        self.out.push_str("}\n\n");
        Ok(())
    }

    fn enumeration(&mut self, id: TypeId, cases: &[wit_parser::EnumCase]) {
        let mut docs = self.wit.resolve.types[id].docs.contents.clone().unwrap_or_default().trim().to_string();
        for c in cases {
            if let Some(d) = c.docs.contents.as_deref() {
                let _ = write!(docs, "\n* `{}`: {}", snake(&c.name), d.trim().replace('\n', " "));
            }
        }
        jsdoc(&mut self.out, &Docs { contents: Some(docs) }, "");
        let union: Vec<String> = cases.iter().map(|c| format!("'{}'", snake(&c.name))).collect();
        let _ = writeln!(self.out, "export type {} = {};\n", pascal(self.name(id)), union.join(" | "));
    }

    /// The cases of variant `name`, checked to be exactly `expected` (case, has payload).
    fn cases(&self, name: &str, expected: &[(&str, Option<&str>)]) -> Result<TypeId> {
        let id = self.id(name)?;
        let TypeDefKind::Variant(v) = self.kind(id) else { bail!("wit: `{name}` is no longer a variant") };
        let got: Vec<(String, Option<String>)> = v
            .cases
            .iter()
            .map(|c| (c.name.clone(), c.ty.as_ref().map(|t| self.ts(t, false).unwrap_or_default())))
            .collect();
        let want: Vec<(String, Option<String>)> =
            expected.iter().map(|(n, t)| (n.to_string(), t.map(str::to_string))).collect();
        if got != want {
            bail!("wit: variant `{name}` is {got:?}; tools/witgen/src/ts.rs encodes {want:?}: update its encoding");
        }
        Ok(id)
    }

    fn record_fields(&self, name: &str, expected: &[&str]) -> Result<(TypeId, &'a [Field])> {
        let id = self.id(name)?;
        let TypeDefKind::Record(r) = self.kind(id) else { bail!("wit: `{name}` is no longer a record") };
        let got: Vec<&str> = r.fields.iter().map(|f| f.name.as_str()).collect();
        if got != expected {
            bail!("wit: record `{name}` has fields {got:?}; tools/witgen/src/ts.rs encodes {expected:?}: update its encoding");
        }
        Ok((id, &r.fields))
    }

    fn doc(&mut self, name: &str) -> Result<()> {
        let id = self.id(name)?;
        jsdoc(&mut self.out, &self.wit.resolve.types[id].docs, "");
        Ok(())
    }

    fn encoded(&mut self, name: &str) -> Result<()> {
        let o = |e: &mut Self, s: &str| e.out.push_str(s);
        match name {
            "stop-reason" => {
                let id = self.id(name)?;
                let TypeDefKind::Enum(e) = self.kind(id) else { bail!("wit: `stop-reason` is no longer an enum") };
                if e.cases.first().map(|c| c.name.as_str()) != Some("delivered") {
                    bail!("wit: `stop-reason` no longer starts with `delivered`");
                }
                self.enumeration(id, &e.cases);
                o(self, "/** Every stop reason but `delivered`: those carry a dead-letter record. */\n");
                o(self, "export type DeadLetterReason = Exclude<StopReason, 'delivered'>;\n\n");
            }
            "attempt-outcome" => {
                let g = self.generic(
                    self.cases(name, &[("response", Some("HttpResponse")), ("transport-error", Some("string"))])?,
                );
                self.doc(name)?;
                o(self, "export type AttemptOutcome<N extends Int = number> = HttpResponse<N> | TransportError;\n\n");
                o(self, "/** No response: the transport error kind (`connect_timeout`, ...; unknown kinds are terminal). */\n");
                o(self, "export interface TransportError {\n  error_kind: string;\n}\n\n");
                if !g {
                    bail!("wit: `attempt-outcome` is no longer an input");
                }
            }
            "stop" => {
                let (_, fields) = self.record_fields(name, &["reason", "disable-endpoint", "dead-letter"])?;
                self.doc(name)?;
                o(self, "export type StopDecision = DeliveredDecision | DeadLetterDecision;\n\n");
                o(self, "/** A 2xx arrived: nothing to dead-letter. */\n");
                o(self, "export interface DeliveredDecision {\n  stop_reason: 'delivered';\n  disable_endpoint: false;\n}\n\n");
                o(self, "/** Every other stop: dead-lettered. */\n");
                o(self, "export interface DeadLetterDecision {\n");
                jsdoc(&mut self.out, &fields[0].docs, "  ");
                o(self, "  stop_reason: DeadLetterReason;\n");
                jsdoc(&mut self.out, &fields[1].docs, "  ");
                o(self, "  disable_endpoint: boolean;\n");
                jsdoc(&mut self.out, &fields[2].docs, "  ");
                o(self, "  dead_letter: DeadLetter;\n}\n\n");
            }
            "decision" => {
                self.cases(name, &[("retry", Some("Retry")), ("stop", Some("Stop"))])?;
                self.doc(name)?;
                o(self, "export type Decision = RetryDecision | StopDecision;\n\n");
                o(self, "/** Try again after `retry.delay_ms`. */\n");
                o(self, "export interface RetryDecision {\n  stop_reason: null;\n  disable_endpoint: false;\n  retry: Retry;\n}\n\n");
            }
            "store-reply" => {
                self.cases(name, &[("unavailable", None), ("answered", Some("Reservation"))])?;
                self.doc(name)?;
                o(self, "export type StoreReply<N extends Int = number> = Unavailable | Reservation<N>;\n\n");
                o(self, "/** The store call failed or timed out: the budget fails closed. */\n");
                o(self, "export interface Unavailable {\n  unavailable: true;\n}\n\n");
            }
            "resumption" => {
                self.cases(name, &[("due", None), ("stop", Some("Stop"))])?;
                self.doc(name)?;
                o(self, "export type Resumption = Due | StopDecision;\n\n");
                o(self, "/** Make the next attempt now. */\n");
                o(self, "export interface Due {\n  due: true;\n}\n\n");
            }
            "admission" => {
                let names =
                    ["class", "policy-version", "policy-hash", "first-attempted-at-ms", "deadline-ms", "schedule"];
                let (id, fields) = self.record_fields(name, &names)?;
                // The schedule's fields sit beside the admission's own.
                self.record(id, fields, Some("Schedule"), &["schedule"])?;
            }
            other => bail!("ts.rs: no encoding for `{other}`"),
        }
        Ok(())
    }

    /// A variant without a contract encoding of its own (0.3's): a union
    /// tagged by `action` (the snake_case case name), a record payload's
    /// fields beside it, any other payload as `value`.
    fn tagged(&mut self, id: TypeId, cases: &[wit_parser::Case]) -> Result<()> {
        let mut docs = self.wit.resolve.types[id].docs.contents.clone().unwrap_or_default().trim().to_string();
        let mut arms = Vec::new();
        for c in cases {
            if let Some(d) = c.docs.contents.as_deref() {
                let _ = write!(docs, "\n* `{}`: {}", snake(&c.name), d.trim().replace('\n', " "));
            }
            let tag = format!("{{ action: '{}' }}", snake(&c.name));
            arms.push(match &c.ty {
                None => tag,
                // `stop` is encoded as the contract's `StopDecision` (see `encoded`).
                Some(Type::Id(p)) if self.name(*p) == "stop" => format!("({tag} & StopDecision)"),
                Some(Type::Id(p)) if matches!(self.kind(*p), TypeDefKind::Record(_)) => {
                    format!("({tag} & {})", self.ts(&Type::Id(*p), false)?)
                }
                Some(t) => format!("{{ action: '{}'; value: {} }}", snake(&c.name), self.ts(t, false)?),
            });
        }
        jsdoc(&mut self.out, &Docs { contents: Some(docs) }, "");
        let _ = writeln!(self.out, "export type {} =\n  | {};\n", pascal(self.name(id)), arms.join("\n  | "));
        Ok(())
    }

    fn emit(&mut self) -> Result<()> {
        for (name, &id) in &self.types.types {
            if SKIPPED.contains(&name.as_str()) {
                continue;
            }
            if ENCODED.contains(&name.as_str()) {
                self.encoded(name)?;
                continue;
            }
            match self.kind(id) {
                TypeDefKind::Enum(e) => self.enumeration(id, &e.cases),
                TypeDefKind::Record(r) => self.record(id, &r.fields, None, &[])?,
                TypeDefKind::Variant(v) => self.tagged(id, &v.cases)?,
                other => bail!("wit: `{name}` ({}) has no TypeScript encoding in ts.rs", other.as_str()),
            }
        }
        Ok(())
    }
}

pub fn emit(wit: &Wit) -> Result<Vec<Generated>> {
    let resolve = &wit.resolve;
    let find = |n: &str| {
        resolve
            .interfaces
            .iter()
            .find(|(_, i)| i.name.as_deref() == Some(n))
            .map(|(_, i)| i)
            .with_context(|| format!("wit: no interface `{n}`"))
    };
    let (types, policy) = (find("types")?, find("policy")?);
    let mut e = Emitter { wit, types, inputs: BTreeSet::new(), integral: BTreeSet::new(), out: String::new() };
    let mut inputs = BTreeSet::new();
    for f in policy.functions.values() {
        f.params.iter().for_each(|p| e.reach(&p.ty, &mut inputs));
    }
    e.inputs = inputs;
    e.integral = types.types.values().copied().filter(|id| e.has_int(&Type::Id(*id), 0)).collect();

    e.out.push_str(&header("//", "ts", "host-examples/node/lib"));
    e.out.push_str(
        "// Types of @webhook/retry-policy in the conformance contract's shapes\n\
         // (snake_case; integer milliseconds), mirrored from `interface types`.\n\n\
         /** An integer input: a number (a safe integer) or a bigint (exact to 2^64-1). */\n\
         export type Int = number | bigint;\n\n",
    );
    e.emit()?;
    let contents = e.out.trim_end().to_string() + "\n";
    Ok(vec![Generated { path: FILE, contents }])
}
