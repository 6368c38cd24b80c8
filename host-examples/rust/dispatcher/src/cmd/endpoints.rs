//! `retry-policy-dispatcher endpoints`: serve local webhook endpoints with fixed
//! statuses until stdin closes (or the process is killed), for the fleet
//! tests, `scripts/demo --redis` and benchmarks.
//!
//!   retry-policy-dispatcher endpoints healthy=200 broken=503 gone=410 [--log] [--host 127.0.0.1]
//!   retry-policy-dispatcher endpoints outage=503~200@5000 paused=429+RA3~200@4000
//!
//! `NAME=DOWN[+RA<S>]~UP@DOWN_MS`: DOWN (with `Retry-After: S`) until
//! DOWN_MS after the endpoint's first POST, then UP forever
//! (`retry_policy_dispatcher::endpoints::Spec`; `tests/fleet/endpoints.py`
//! has the same form).
//!
//! Prints one JSON line: `{"healthy":"http://127.0.0.1:PORT/webhook",...}`.
//! Each endpoint answers `GET /__stats` (counts) and, with `--log`,
//! `GET /__log` (one JSON line per request: Unix ms, X-Attempt, X-Event-Id).

use std::io::Read;

use retry_policy_dispatcher::endpoints::{Endpoint, Spec};

use retry_policy_dispatcher::args::Flags;
use serde_json::{Map, Value};

pub fn run(f: &Flags, args: &[String]) -> Result<(), String> {
    let log = f.has("log");
    let host = f.str("host").unwrap_or("127.0.0.1").to_string();
    let mut specs = Vec::new();
    for s in args {
        let (name, status) = s.split_once('=').ok_or_else(|| format!("`{s}` is not NAME=STATUS"))?;
        let spec = Spec::parse(status).map_err(|e| format!("{name}: {e}"))?;
        specs.push((name.to_string(), spec));
    }
    if specs.is_empty() {
        return Err("name at least one endpoint, e.g. healthy=200 broken=503".into());
    }
    let mut urls = Map::new();
    let mut running = Vec::new();
    for (name, spec) in specs {
        let ep = Endpoint::start_spec(&format!("{host}:0"), spec, log).map_err(|e| format!("{name}: {e}"))?;
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
