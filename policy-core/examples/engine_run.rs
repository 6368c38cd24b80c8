//! Run engine traces and print what the engine does: the trace vector
//! generator's one dependency (`tests/vectors-engine/generate.py`, which writes `tests/vectors/engine-*.json`).
//!
//! stdin: `{"config": {...}, "inputs": [...]}`; stdout: one JSON line per
//! input, `{"outputs": [...], "errors": [...], "timeout_ms": N | null}`.

use std::io::Read;

use retry_policy_core::engine::{wire, Engine};
use retry_policy_core::json;

fn main() {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("engine_run: cannot read stdin: {e}");
        std::process::exit(2);
    }
    let v: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("engine_run: stdin is not JSON: {e}");
            std::process::exit(2);
        }
    };
    let config = json::parse(&v["config"].to_string()).map(|c| wire::config(&c));
    let mut engine = match config {
        Ok(Ok(c)) => match Engine::new(c) {
            Ok(e) => e,
            Err(e) => {
                println!("{}", serde_json::json!({"config_error": e.code(), "message": e.to_string()}));
                return;
            }
        },
        Ok(Err(e)) => {
            println!("{}", serde_json::json!({"config_error": e.code(), "message": e.to_string()}));
            return;
        }
        Err(e) => {
            eprintln!("engine_run: {e}");
            std::process::exit(2);
        }
    };
    for input in v["inputs"].as_array().into_iter().flatten() {
        let batch = serde_json::Value::Array(vec![input.clone()]).to_string();
        match wire::feed(&mut engine, &batch) {
            Ok(out) => println!("{out}"),
            Err(e) => {
                eprintln!("engine_run: {e}");
                std::process::exit(2);
            }
        }
    }
}
