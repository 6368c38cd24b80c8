//! Reading a policy document (JSON or TOML) as the engine wants it: JSON
//! text. Syntax is checked here only to tell "unreadable" apart from
//! "readable but wrong"; every rule about what a document may say is the
//! engine's.

use retry_policy_core::health::HealthDocument;
use retry_policy_core::json::{self, Value};

/// The file could not be used at all (lint exits 2).
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable(pub String);

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A parsed document: its JSON text for the engine and its tree.
#[derive(Debug, Clone)]
pub struct Source {
    pub path: String,
    pub json: String,
    pub tree: Value,
}

/// What reading produced: a document, or a syntax error that is a finding
/// (a duplicate key), or nothing usable.
#[derive(Debug, Clone)]
pub enum Read {
    Document(Source),
    /// A duplicate key: the message and the key's dotted path when known.
    Duplicate {
        message: String,
        field: String,
    },
}

fn duplicate_field(message: &str) -> Option<String> {
    // toml: "duplicate key `a` in table `classes`"; json: "duplicate key `a` at line ..."
    let rest = message.split("duplicate key `").nth(1)?;
    let key = rest.split('`').next()?;
    match rest.split("in table `").nth(1).and_then(|t| t.split('`').next()) {
        Some(table) => Some(format!("{table}.{key}")),
        None => Some(key.to_string()),
    }
}

/// Parse `text` (TOML when `path` ends in `.toml`, else JSON).
pub fn parse(path: &str, text: &str) -> Result<Read, Unreadable> {
    let tree = if path.ends_with(".toml") {
        match toml::from_str::<Value>(text) {
            Ok(v) => v,
            Err(e) => return syntax(path, &format!("not valid TOML: {e}")),
        }
    } else {
        match json::parse(text) {
            Ok(v) => v,
            Err(e) => return syntax(path, &e.message),
        }
    };
    let json = if path.ends_with(".toml") {
        serde_json::to_string(&tree).map_err(|e| Unreadable(format!("{path}: {e}")))?
    } else {
        text.to_string()
    };
    Ok(Read::Document(Source { path: path.to_string(), json, tree }))
}

fn syntax(path: &str, message: &str) -> Result<Read, Unreadable> {
    let one_line = message.lines().rfind(|l| !l.trim().is_empty()).unwrap_or(message).trim().to_string();
    match duplicate_field(message) {
        Some(field) => Ok(Read::Duplicate { message: one_line, field }),
        None => Err(Unreadable(format!("{path}: {}", message.replace('\n', " ")))),
    }
}

/// Read and parse a file.
pub fn read(path: &str) -> Result<Read, Unreadable> {
    let text = std::fs::read_to_string(path).map_err(|e| Unreadable(format!("{path}: {e}")))?;
    parse(path, &text)
}

/// The document's classes as separate one-class documents (JSON text), so
/// one bad class does not hide what is wrong with the others.
pub fn split_classes(tree: &Value) -> Vec<(String, String)> {
    let Some(Value::Object(classes)) = tree.get("classes") else { return Vec::new() };
    classes
        .iter()
        .map(|(name, v)| {
            let one = Value::Object(vec![("classes".to_string(), Value::Object(vec![(name.clone(), v.clone())]))]);
            (name.clone(), serde_json::to_string(&one).unwrap_or_default())
        })
        .collect()
}

/// Read a whole document through the engine (for simulate and diff): any
/// problem is one line of error. Format 3: the sections come with it (none
/// in a format-2 document).
pub fn load(engine: &mut dyn crate::DecisionSource, path: &str) -> Result<HealthDocument, String> {
    load_read(engine, path, read(path).map_err(|e| e.0)?)
}

/// [`load`] for document text (`path` names it and picks TOML or JSON).
pub fn load_text(engine: &mut dyn crate::DecisionSource, path: &str, text: &str) -> Result<HealthDocument, String> {
    load_read(engine, path, parse(path, text).map_err(|e| e.0)?)
}

fn load_read(engine: &mut dyn crate::DecisionSource, path: &str, read: Read) -> Result<HealthDocument, String> {
    match read {
        Read::Duplicate { message, .. } => Err(format!("{path}: {message}")),
        Read::Document(src) => engine.load_health_document(&src.json).map_err(|e| format!("{path}: {e}")),
    }
}
