//! The REPLICA command line judged once (docs/replica.md): every language's
//! replica hands its arguments here, through the component's
//! `replica-args`, and gets back either every setting resolved (defaults
//! filled in, ranges and exclusions checked) or one line naming what is
//! wrong. The hosts keep only what needs their I/O: reading the files the
//! flags name, the hostname and pid of the default replica id, the
//! environment's artifact path.
//!
//! `--help` and `--version` must work without loading the artifact, so the
//! help text and the flag names are also written into each host as
//! GENERATED files ([`usage`], [`flag_names`]; `scripts/generate`).
//!
//! A request (JSON): `{"command": "replica" | "replay", "args": [...],
//! "extras": [...], "replica_id": "...", "artifact_env": "..." | null}`:
//! `args` the command's arguments, `extras` the language extras the host
//! honours (table.rs; another extra is refused, naming it), `replica_id`
//! the default `--replica-id`, `artifact_env` `$RETRY_POLICY_ARTIFACT`.
//! The answer: `{"command": "help"}`, `{"command": "version"}`, or
//! `{"command", <one member per flag of the command>}`, each named as its
//! flag without `--` and with `_` for `-` (`--endpoint-id` is
//! `endpoint_id`; `rate` is events per second): the value read (a whole
//! number, a signed one, a float, a string, a bool), the default when the
//! flag is absent, `null` when it has none; `metrics_addr` is `{"host",
//! "port"}`; `artifact` falls back to `artifact_env`.

mod table;
mod value;
pub mod vectors;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::journal::json_text::to_text;
use crate::json::{self, Value};
pub use table::{flags, Flag, Kind, REPLAY, REPLICA};

/// The judgement of a request: the answer's JSON text, or the one line to
/// print (exit 2). Every line starts with the flag it names, else with
/// `unknown argument` or the request's own fault (`replica-args request:`).
pub fn judge_text(request: &str) -> Result<String, String> {
    let request = json::parse(request).map_err(|e| format!("replica-args request: {e}"))?;
    judge(&request).map(|v| to_text(&v))
}

/// [`judge_text`] on a parsed request.
pub fn judge(request: &Value) -> Result<Value, String> {
    let bad = |m: &str| format!("replica-args request: {m}");
    let f = crate::codec::Fields::new(request, &["command", "args", "extras", "replica_id", "artifact_env"])
        .map_err(|e| bad(&e.to_string()))?;
    let command = f.str("command").map_err(|e| bad(&e.to_string()))?;
    let table = flags(command).ok_or_else(|| bad("`command` is replica or replay"))?;
    let args = strings(f.opt("args")).ok_or_else(|| bad("`args` is an array of strings"))?;
    let extras = strings(f.opt("extras")).ok_or_else(|| bad("`extras` is an array of strings"))?;
    let text = |key| match f.opt(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(bad(&format!("`{key}` is a string or null"))),
    };
    let (replica_id, artifact_env) = (text("replica_id")?, text("artifact_env")?);
    if args.iter().any(|a| *a == "--help" || *a == "-h") {
        return Ok(Value::Object(alloc::vec![("command".into(), Value::String("help".into()))]));
    }
    if args.contains(&"--version") {
        return Ok(Value::Object(alloc::vec![("command".into(), Value::String("version".into()))]));
    }
    let given = read(table, &args)?;
    for (flag, _) in &given {
        if flag.extra && !extras.contains(&flag.name) {
            return Err(format!("{}: not supported by this language's replica (a language extra)", flag.name));
        }
    }
    let has = |name: &str| given.iter().any(|(g, _)| g.name == name);
    for name in table::required(command) {
        if !has(name) {
            return Err(format!("{name} is required"));
        }
    }
    let mut out = alloc::vec![("command".to_string(), Value::String(command.into()))];
    for flag in table {
        let raw = given.iter().find(|(g, _)| g.name == flag.name).map(|(_, v)| *v);
        let v = match raw {
            Some(text) => value::read(flag, text)?,
            // Both commands: the artifact falls back to $RETRY_POLICY_ARTIFACT (an empty one is unset).
            None if flag.name == "--artifact" => {
                artifact_env.filter(|p| !p.is_empty()).map_or(Value::Null, |p| Value::String(p.into()))
            }
            None => json::parse(flag.default).unwrap_or(Value::Null),
        };
        out.push((flag.name[2..].replace('-', "_"), v));
    }
    let mut answer = Value::Object(out);
    if command == "replica" {
        rules(&mut answer, &has, replica_id)?;
    }
    Ok(answer)
}

/// The replica's rules across flags (docs/replica.md).
fn rules(answer: &mut Value, has: &dyn Fn(&str) -> bool, replica_id: Option<&str>) -> Result<(), String> {
    let follow = has("--artifact-from-redis");
    if has("--redis") && has("--redis-cluster") {
        return Err("--redis and --redis-cluster are exclusive".into());
    }
    if follow && !has("--redis") && !has("--redis-cluster") {
        return Err("--artifact-from-redis needs --redis or --redis-cluster".into());
    }
    if follow && !has("--trust-key") {
        return Err("--artifact-from-redis needs --trust-key FILE".into());
    }
    if follow && has("--watch-artifact-ms") {
        return Err("--artifact-from-redis and --watch-artifact-ms are exclusive".into());
    }
    if !follow && has("--trust-key") {
        return Err("--trust-key is only for --artifact-from-redis".into());
    }
    if has("--watch-policy") && !has("--policy") {
        return Err("--watch-policy needs --policy FILE".into());
    }
    let Value::Object(members) = answer else { return Ok(()) };
    for (key, v) in members.iter_mut() {
        if key == "replica_id" && *v == Value::Null {
            *v = replica_id.map_or(Value::Null, |id| Value::String(id.into()));
        }
        if key == "replica_id" {
            if let Value::String(id) = v {
                if id.len() > crate::rollout::MAX_REPLICA_ID_BYTES {
                    return Err(format!("--replica-id: expected 1 to 200 bytes of UTF-8, got {}", id.len()));
                }
            }
        }
    }
    if has("--watch-artifact-ms") && answer.get("artifact") == Some(&Value::Null) {
        return Err("--watch-artifact-ms needs --artifact PATH or $RETRY_POLICY_ARTIFACT".into());
    }
    Ok(())
}

/// The flags of `args` with their raw values (`""` for a switch): `--flag
/// value` or `--flag=value`, each flag at most once.
fn read<'a>(table: &'static [Flag], args: &[&'a str]) -> Result<Vec<(&'static Flag, &'a str)>, String> {
    let mut given: Vec<(&'static Flag, &'a str)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i];
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (arg, None),
        };
        let Some(flag) = table.iter().find(|f| f.name == name) else {
            return Err(format!("unknown argument {}", value::quoted(arg)));
        };
        let text = match (flag.kind, inline) {
            (Kind::Switch, Some(_)) => return Err(format!("{name} takes no value")),
            (Kind::Switch, None) => "",
            (_, Some(v)) => v,
            (_, None) => {
                i += 1;
                *args.get(i).ok_or_else(|| format!("{name}: missing value"))?
            }
        };
        if given.iter().any(|(g, _)| g.name == name) {
            return Err(format!("{name} given twice"));
        }
        given.push((flag, text));
        i += 1;
    }
    Ok(given)
}

fn strings(v: Option<&Value>) -> Option<Vec<&str>> {
    match v {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(Value::as_str).collect(),
        Some(_) => None,
    }
}

/// The help text every replica prints for `--help` (`command`: replica or
/// replay), from the table.
pub fn usage(command: &str) -> String {
    let (table, head) = match command {
        "replay" => (REPLAY, "usage: replica replay --store FILE --policy FILE [flags]\nReplays the dead letters a journal holds as new events (docs/health-dispatch.md section 4); prints one JSON line.\n"),
        _ => (REPLICA, "usage: replica --target URL --endpoint-id ID --events N [flags]\n       replica replay --store FILE --policy FILE [flags]   (replica replay --help)\n       replica --help | --version\nDelivers N events to URL through the delivery engine (docs/replica.md) until each stops, then prints\none JSON line on stdout. Exit 0 when the run ended; 2 on bad arguments or setup; 1 on anything else.\n"),
    };
    let mut out = String::from(head);
    for flag in table {
        let left = if flag.value.is_empty() { flag.name.to_string() } else { format!("{} {}", flag.name, flag.value) };
        let default = match flag.default {
            "null" | "false" => String::new(),
            d => format!(" [default: {}]", d.trim_matches('"')),
        };
        let extra = if flag.extra { " (a language extra)" } else { "" };
        out.push_str(&format!("  {left:<26} {}{default}{extra}\n", flag.help));
    }
    out
}

/// Every flag name of both commands, once, in table order (the hosts'
/// GENERATED list: an unknown flag is named before the artifact loads).
pub fn flag_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for flag in REPLICA.iter().chain(REPLAY) {
        if !names.contains(&flag.name) {
            names.push(flag.name);
        }
    }
    names
}

#[cfg(test)]
mod tests;
