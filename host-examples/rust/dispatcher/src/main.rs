//! `retry-policy-dispatcher`: the Rust dispatcher's commands.
//!
//!   retry-policy-dispatcher replica ...     one fleet replica (REPLICA contract; prints one JSON line)
//!   retry-policy-dispatcher demo ...        the storm demo (three local endpoints, /metrics)
//!   retry-policy-dispatcher endpoints ...   local endpoints with fixed statuses (tests, demos)
//!   retry-policy-dispatcher bench ...       throughput with and without a storm; Redis round trips
//!
//! Bad arguments exit 2 with a message naming the problem.

mod cmd {
    pub mod bench;
    pub mod demo;
    pub mod endpoints;
    pub mod replica;
}

use std::process::ExitCode;

const USAGE: &str = "usage: retry-policy-dispatcher <replica|demo|endpoints|bench> [--help] ...";

fn fail(cmd: &str, e: &str, usage: &str) -> ExitCode {
    eprintln!("retry-policy-dispatcher {cmd}: {e}\n{usage}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((name, rest)) = args.split_first() else {
        return fail("", "which command?", USAGE);
    };
    if rest.iter().any(|a| a == "--help" || a == "-h") {
        let usage = match name.as_str() {
            "replica" => cmd::replica::USAGE,
            "demo" => cmd::demo::USAGE,
            "endpoints" => cmd::endpoints::USAGE,
            "bench" => cmd::bench::USAGE,
            _ => USAGE,
        };
        println!("{usage}");
        return ExitCode::SUCCESS;
    }
    match name.as_str() {
        "replica" => match cmd::replica::run(rest) {
            Ok(line) => {
                println!("{line}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(name, &e, cmd::replica::USAGE),
        },
        "demo" => cmd::demo::run(rest).map_or_else(|e| fail(name, &e, cmd::demo::USAGE), |()| ExitCode::SUCCESS),
        "endpoints" => {
            cmd::endpoints::run(rest).map_or_else(|e| fail(name, &e, cmd::endpoints::USAGE), |()| ExitCode::SUCCESS)
        }
        "bench" => cmd::bench::run(rest).map_or_else(|e| fail(name, &e, cmd::bench::USAGE), |()| ExitCode::SUCCESS),
        other => fail(other, "unknown command", USAGE),
    }
}
