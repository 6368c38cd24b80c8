//! The types file: every WIT record, enum and variant of the world as a Go type.

use super::*;

impl<'a> Gen<'a> {
    pub(super) fn types_file(&mut self) -> Result<String> {
        let mut out = go_header();
        out.push_str("\npackage retrypolicy\n\nimport (\n\t\"fmt\"\n\t\"strconv\"\n)\n");
        for id in self.world_type_ids() {
            let def = &self.r.types[id];
            let name = self.named(id);
            out.push('\n');
            match &def.kind {
                TypeDefKind::Record(rec) => {
                    doc(
                        &mut out,
                        "",
                        &def.docs,
                        &format!("{name} is the WIT record `{}`.", def.name.as_deref().unwrap_or("")),
                    );
                    let _ = writeln!(out, "type {name} struct {{");
                    for (i, f) in rec.fields.iter().enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        doc(&mut out, "\t", &f.docs, "");
                        let omit = if matches!(self.dealias(&f.ty), Type::Id(t) if matches!(self.r.types[t].kind, TypeDefKind::Option(_)))
                        {
                            ",omitempty"
                        } else {
                            ""
                        };
                        let _ = writeln!(
                            out,
                            "\t{} {} `json:\"{}{omit}\"`",
                            pascal(&f.name),
                            self.go_type(&f.ty)?,
                            snake(&f.name)
                        );
                    }
                    out.push_str("}\n");
                }
                TypeDefKind::Variant(v) => {
                    doc(&mut out, "", &def.docs, "");
                    let cases: Vec<String> = v.cases.iter().map(|c| pascal(&c.name)).collect();
                    let _ = writeln!(
                        out,
                        "//\n// Exactly one of {} is set (WIT variant `{}`).",
                        cases.join(", "),
                        def.name.as_deref().unwrap_or("")
                    );
                    let _ = writeln!(out, "type {name} struct {{");
                    for (i, c) in v.cases.iter().enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        doc(&mut out, "\t", &c.docs, "");
                        let ty = match &c.ty {
                            Some(t) => format!("*{}", self.go_type(t)?),
                            None => "bool".into(),
                        };
                        let _ = writeln!(out, "\t{} {ty} `json:\"{},omitempty\"`", pascal(&c.name), snake(&c.name));
                    }
                    out.push_str("}\n");
                }
                TypeDefKind::Enum(e) => {
                    let lower = camel(def.name.as_deref().unwrap_or(""));
                    doc(&mut out, "", &def.docs, "");
                    let _ = writeln!(out, "type {name} uint8\n\nconst (");
                    for (i, c) in e.cases.iter().enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        doc(&mut out, "\t", &c.docs, "");
                        let first = if i == 0 { format!(" {name} = iota") } else { String::new() };
                        let _ = writeln!(out, "\t{name}{}{first}", pascal(&c.name));
                    }
                    let names: Vec<String> = e.cases.iter().map(|c| format!("{:?}", snake(&c.name))).collect();
                    let values: Vec<String> = e.cases.iter().map(|c| format!("{name}{}", pascal(&c.name))).collect();
                    let _ = write!(
                        out,
                        ")\n\n// {lower}Names are the contract's (snake_case) names of {name}, in case order.\n\
                         var {lower}Names = [...]string{{{names}}}\n\n\
                         // {name}Values returns every {name}, in case order.\n\
                         func {name}Values() []{name} {{\n\treturn []{name}{{{values}}}\n}}\n\n\
                         // String is the contract's name of v.\n\
                         func (v {name}) String() string {{\n\
                         \tif int(v) < len({lower}Names) {{\n\t\treturn {lower}Names[v]\n\t}}\n\
                         \treturn \"{name}(\" + strconv.Itoa(int(v)) + \")\"\n}}\n\n\
                         // MarshalText encodes v as its contract name.\n\
                         func (v {name}) MarshalText() ([]byte, error) {{\n\
                         \tif int(v) >= len({lower}Names) {{\n\t\treturn nil, fmt.Errorf(\"no {name} %d\", uint8(v))\n\t}}\n\
                         \treturn []byte({lower}Names[v]), nil\n}}\n\n\
                         // UnmarshalText decodes a contract name.\n\
                         func (v *{name}) UnmarshalText(b []byte) error {{\n\
                         \tp, ok := Parse{name}(string(b))\n\tif !ok {{\n\t\treturn fmt.Errorf(\"unknown {name} %q\", b)\n\t}}\n\
                         \t*v = p\n\treturn nil\n}}\n\n\
                         // Parse{name} returns the {name} named s (snake_case), and whether there is one.\n\
                         func Parse{name}(s string) ({name}, bool) {{\n\
                         \tfor i, n := range {lower}Names {{\n\t\tif n == s {{\n\t\t\treturn {name}(i), true\n\t\t}}\n\t}}\n\
                         \treturn 0, false\n}}\n",
                        names = names.join(", "),
                        values = values.join(", ")
                    );
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Named records, variants and enums of every interface the world uses, in definition order.
    pub(super) fn world_type_ids(&self) -> Vec<TypeId> {
        let world = &self.r.worlds[self.wit.world];
        let mut ids = Vec::new();
        for item in world.imports.values().chain(world.exports.values()) {
            if let WorldItem::Interface { id, .. } = item {
                for &t in self.r.interfaces[*id].types.values() {
                    if matches!(
                        self.r.types[t].kind,
                        TypeDefKind::Record(_) | TypeDefKind::Variant(_) | TypeDefKind::Enum(_)
                    ) {
                        ids.push(t);
                    }
                }
            }
        }
        ids
    }
}
