//! The dispatcher's command line. `replica` and `replay` (the REPLICA
//! contract's command line) are judged by policy-core's `replica_args`
//! ([`crate::replica_args`]): the same flags, checks and help as every
//! language's replica. The other commands have one table each (flag, value
//! name, help) built with clap's builder API: clap refuses an unknown,
//! repeated or valueless flag (exit 2, naming it) and answers `--help` and
//! `--version` (exit 0) before anything is loaded; their values are then
//! read through [`Flags`] (typed, with errors naming the flag).

use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::args::Flags;
use crate::replica_args::Judged;

/// What `replica` and `replay` do (the program's --help).
const REPLICA_ABOUT: &str = "One fleet replica (docs/replica.md); prints one JSON line";
const REPLAY_ABOUT: &str = "Replay dead letters of a journal as new events; prints one JSON line";

/// A flag: its long name, its value's name (`""`: a switch) and its help.
type Flag = (&'static str, &'static str, &'static str);

/// The help of `--component`, the old name of `--artifact` (hidden).
const OLD_NAME: &str = "the old name of --artifact";

/// `demo`: the storm demo (scripts/demo).
const DEMO: &[Flag] = &[
    ("events", "N", "events [default: 3000]"),
    ("rate", "N", "events per second [default: 300]"),
    ("quiet-s", "S", "seconds of quiet after the storm [default: 3]"),
    ("quiet-rate", "N", "events per second during the quiet [default: 10]"),
    ("concurrency", "C", "deliveries in flight [default: 8]"),
    ("policy", "FILE", "the policy document"),
    ("redis", "URL", "the fleet budget store"),
    ("store", "FILE", "journal every event to FILE"),
    ("metrics-addr", "HOST:PORT", "serve GET /metrics on HOST:PORT [default: 127.0.0.1:0]"),
    ("hold-s", "S", "keep serving /metrics for S seconds after the run [default: 0]"),
    ("component", "PATH", "the old name of --artifact"),
    ("artifact", "PATH", "the policy artifact"),
    ("store-timeout-ms", "N", "bound on one budget store call [default: 250]"),
    ("allow-private-targets", "", "required: the demo's endpoints are on loopback, refused by default"),
];

/// `endpoints`: local endpoints with fixed statuses (its positional specs apart).
const ENDPOINTS: &[Flag] =
    &[("log", "", "log every request on stderr"), ("host", "HOST", "the address to listen on [default: 127.0.0.1]")];

/// `bench`: throughput with and without a storm.
const BENCH: &[Flag] = &[
    ("redis", "URL", "a Redis budget store to measure round trips against"),
    ("healthy", "N", "healthy events per round [default: 4000]"),
    ("storm-share", "PCT", "storm events, in % of the healthy ones [default: 10]"),
    ("concurrency", "C", "deliveries in flight [default: 8]"),
    ("rounds", "N", "rounds [default: 5]"),
    ("component", "PATH", "the old name of --artifact"),
    ("artifact", "PATH", "the policy artifact"),
];

/// `name`, described by `about`, with the flags of `table`.
fn command_of(name: &'static str, about: &'static str, table: &[Flag]) -> Command {
    Command::new(name).about(about).args(table.iter().map(|&(long, value, help)| {
        let arg = Arg::new(long).long(long).help(help).hide(help == OLD_NAME);
        if value.is_empty() {
            arg.action(ArgAction::SetTrue)
        } else {
            arg.value_name(value)
        }
    }))
}

/// The whole command line.
pub fn command() -> Command {
    let specs =
        Arg::new("specs").value_name("NAME=STATUS").required(true).num_args(1..).action(ArgAction::Append).help(
            "NAME=STATUS for each endpoint (e.g. ok=200 broken=503), or NAME=DOWN[+RA<S>]~UP@DOWN_MS: DOWN (with \
         `Retry-After: S`) until DOWN_MS after its first POST, then UP (e.g. flaky=503~200@6000)",
        );
    Command::new("retry-policy-dispatcher")
        .version(env!("CARGO_PKG_VERSION"))
        .propagate_version(true)
        .about("A webhook dispatcher on the retry-policy component")
        .disable_help_subcommand(true)
        .arg_required_else_help(true)
        .subcommand_required(true)
        .subcommands([
            // Listed for the program's --help; their command lines are the core's (`parse`).
            Command::new("replica").about(REPLICA_ABOUT),
            command_of("demo", "The storm demo: three local endpoints, /metrics", DEMO).allow_negative_numbers(true),
            command_of("endpoints", "Local endpoints with fixed statuses (tests, demos)", ENDPOINTS).arg(specs),
            command_of("bench", "Throughput with and without a storm; Redis round trips", BENCH),
            Command::new("replay").about(REPLAY_ABOUT),
        ])
}

/// The command line parsed.
#[derive(Debug)]
pub enum Parsed {
    /// `replica` or `replay` (`replica replay ...` is `replay ...`): the
    /// core's judgement, or the line to print before exit 2.
    Replica { command: &'static str, judged: Result<Judged, String> },
    /// Another command: its name, its flags, and (for `endpoints`) its positional specs.
    Other(String, Flags, Vec<String>),
}

/// The command line parsed. `Err` is clap's error: print it and exit with
/// its code (2 for a bad flag, 0 for --help/--version).
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Parsed, clap::Error> {
    let args: Vec<String> = args.into_iter().collect();
    let rest = args.get(2..).unwrap_or_default();
    let judged = match (args.get(1).map(String::as_str), rest.first().map(String::as_str)) {
        (Some("replica"), Some("replay")) => Some(("replay", &rest[1..])),
        (Some("replica"), _) => Some(("replica", rest)),
        (Some("replay"), _) => Some(("replay", rest)),
        _ => None,
    };
    if let Some((command, rest)) = judged {
        return Ok(Parsed::Replica { command, judged: crate::replica_args::judge(command, rest) });
    }
    let matches = command().try_get_matches_from(args)?;
    let (name, sub) = matches.subcommand().expect("a subcommand is required");
    let specs = sub.try_get_many::<String>("specs").ok().flatten().map_or_else(Vec::new, |s| s.cloned().collect());
    Ok(Parsed::Other(name.to_string(), flags_of(sub), specs))
}

/// Every flag given, under its long name.
fn flags_of(m: &ArgMatches) -> Flags {
    let mut values = Vec::new();
    let mut switches = Vec::new();
    for id in m.ids() {
        let id = id.as_str();
        if let Ok(Some(v)) = m.try_get_one::<String>(id) {
            values.push((id.to_string(), v.clone()));
        } else if let Ok(Some(true)) = m.try_get_one::<bool>(id) {
            switches.push(id.to_string());
        }
    }
    Flags::from_parts(values, switches)
}

#[cfg(test)]
#[path = "tests_cli.rs"]
mod tests;
