//! `retry-policy-dispatcher`: the Rust dispatcher's commands.
//!
//!   retry-policy-dispatcher replica ...     one fleet replica (REPLICA contract; prints one JSON line)
//!   retry-policy-dispatcher demo ...        the storm demo (three local endpoints, /metrics)
//!   retry-policy-dispatcher endpoints ...   local endpoints with fixed statuses (tests, demos)
//!   retry-policy-dispatcher bench ...       throughput with and without a storm; Redis round trips
//!   retry-policy-dispatcher replay ...      replay dead letters of a journal as new events (one JSON line)
//!
//! `replica` and `replay` take their command line through policy-core's
//! `replica_args` (the REPLICA contract's, every language's); the other
//! commands through clap ([`retry_policy_dispatcher::cli`]). A bad flag
//! exits 2 naming it, `--help` and `--version` exit 0 without loading
//! anything. A bad value or setup (artifact, policy, CA file) exits 2 too.

mod cmd {
    pub mod bench;
    pub mod demo;
    pub mod endpoints;
    pub mod replay;
    pub mod replica;
}

use std::process::ExitCode;

use retry_policy_dispatcher::cli::Parsed;
use retry_policy_dispatcher::replica_args::Judged;

fn fail(cmd: &str, e: &str) -> ExitCode {
    eprintln!("retry-policy-dispatcher {cmd}: {e}\n(see retry-policy-dispatcher {cmd} --help)");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let parsed = match retry_policy_dispatcher::cli::parse(std::env::args()) {
        Ok(parsed) => parsed,
        Err(e) => {
            // --help/--version on stdout (exit 0); a usage error on stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let (name, done) = match parsed {
        Parsed::Replica { command, judged } => (command.to_string(), replica(command, judged)),
        Parsed::Other(name, flags, positional) => {
            let done = match name.as_str() {
                "demo" => cmd::demo::run(&flags),
                "endpoints" => cmd::endpoints::run(&flags, &positional),
                "bench" => cmd::bench::run(&flags),
                other => Err(format!("unknown command {other}")),
            };
            (name, done)
        }
    };
    done.map_or_else(|e| fail(&name, &e), |()| ExitCode::SUCCESS)
}

/// `replica` or `replay` as the core judged its command line.
fn replica(command: &str, judged: Result<Judged, String>) -> Result<(), String> {
    match judged? {
        Judged::Help(usage) => print!("{usage}"),
        Judged::Version => println!("retry-policy-dispatcher-{command} {}", env!("CARGO_PKG_VERSION")),
        Judged::Replica(settings) => println!("{}", cmd::replica::run(&settings)?),
        Judged::Replay(settings) => println!("{}", cmd::replay::run(&settings)?),
    }
    Ok(())
}
