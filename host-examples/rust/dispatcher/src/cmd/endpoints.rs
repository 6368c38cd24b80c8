//! `retry-policy-dispatcher endpoints`: serve local webhook endpoints with fixed
//! statuses until stdin closes (or the process is killed), for the fleet
//! tests, `scripts/demo --redis` and benchmarks.
//!
//!   retry-policy-dispatcher endpoints healthy=200 broken=503 gone=410 [--log] [--host 127.0.0.1]
//!
//! Prints one JSON line: `{"healthy":"http://127.0.0.1:PORT/webhook",...}`.
//! Each endpoint answers `GET /__stats` (counts) and, with `--log`,
//! `GET /__log` (one JSON line per request: Unix ms, X-Attempt, X-Event-Id).

use std::io::Read;

use retry_policy_dispatcher::endpoints::Endpoint;

use retry_policy_dispatcher::args::Flags;
use serde_json::{Map, Value};

pub fn run(f: &Flags, args: &[String]) -> Result<(), String> {
    let log = f.has("log");
    let host = f.str("host").unwrap_or("127.0.0.1").to_string();
    let mut specs = Vec::new();
    for s in args {
        let (name, status) = s.split_once('=').ok_or_else(|| format!("`{s}` is not NAME=STATUS"))?;
        let status: u16 = status
            .parse()
            .ok()
            .filter(|s| (100..=599).contains(s))
            .ok_or_else(|| format!("`{s}`: status must be 100..=599"))?;
        specs.push((name.to_string(), status));
    }
    if specs.is_empty() {
        return Err("name at least one endpoint, e.g. healthy=200 broken=503".into());
    }
    let mut urls = Map::new();
    let mut running = Vec::new();
    for (name, status) in specs {
        let ep = Endpoint::start(&format!("{host}:0"), status, log).map_err(|e| format!("{name}: {e}"))?;
        urls.insert(name, Value::String(ep.url()));
        running.push(ep);
    }
    println!("{}", Value::Object(urls));
    // Serve until stdin closes (the parent went away) or we are killed.
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    drop(running);
    Ok(())
}
