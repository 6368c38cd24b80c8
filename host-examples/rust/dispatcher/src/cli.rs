//! The dispatcher's command line: one table per command (flag, value name,
//! help) built with clap's builder API. clap refuses an unknown, repeated or
//! valueless flag (exit 2, naming it) and answers `--help` and `--version`
//! (exit 0) before anything is loaded. The values are then read through
//! [`Flags`] (typed, with errors naming the flag).

use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::args::Flags;

/// A flag: its long name, its value's name (`""`: a switch) and its help.
type Flag = (&'static str, &'static str, &'static str);

/// The help of `--component`, the old name of `--artifact` (hidden).
const OLD_NAME: &str = "the old name of --artifact";

/// `replica` (docs/replica.md, "Flags").
const REPLICA: &[Flag] = &[
    ("target", "URL", "http:// or https:// URL every attempt is sent to (required)"),
    ("endpoint-id", "ID", "the budget's endpoint id (required)"),
    ("events", "N", "events to admit (required)"),
    ("concurrency", "C", "events in progress at once [default: 8]"),
    ("policy", "FILE", "the policy document (JSON or TOML) [default: the artifact's embedded one]"),
    ("redis", "URL", "the fleet budget store: redis://[USER[:PASSWORD]@]HOST:PORT[/DB] or rediss://"),
    ("redis-cluster", "URL", "the same, as a Redis Cluster seed"),
    ("deadline-ms", "N", "stop admitting events N ms after start"),
    ("class", "NAME", "the event class [default: storm]"),
    ("rate", "EVENTS_PER_S", "admissions per second"),
    ("store", "FILE", "journal every event (JSON lines, fsynced, one writer) to FILE; its pending events are continued"),
    ("resume", "FILE", "first continue the pending events of another replica's journal"),
    ("component", "PATH", "the old name of --artifact"),
    ("artifact", "PATH", "the policy artifact [default: $RETRY_POLICY_ARTIFACT, else the copy built in]"),
    ("metrics-addr", "HOST:PORT", "serve GET /metrics on HOST:PORT (empty HOST: 127.0.0.1, port 0: any free port)"),
    ("watch-artifact-ms", "N", "poll the artifact file every N ms (N >= 1) and swap when its sha256 changes"),
    ("artifact-from-redis", "", "follow the fleet's published artifact (docs/rollout.md) through --redis or --redis-cluster (required), verified against --trust-key (required): one tick before the first admission, then every --rollout-poll-ms"),
    ("trust-key", "FILE", "PEM file of the Ed25519 public keys whose signatures are trusted (only with --artifact-from-redis)"),
    ("replica-id", "ID", "this replica's id in the rollout's status records and canary rule (1 to 200 bytes) [default: rust-<hostname>-<pid>]"),
    ("rollout-poll-ms", "N", "the rollout follower's tick, 50 to 60000 ms [default: 500]"),
    ("clock-offset-ms", "N", "add N ms (may be negative) to this replica's clock"),
    ("store-timeout-ms", "N", "bound on one budget store call [default: 250]"),
    ("attempt-deadline-ms", "N", "bound on one HTTP attempt, connect to last body byte [default: 30000]"),
    ("connect-timeout-ms", "N", "connect timeout [default: 2000]"),
    ("signing-secrets", "FILE", "sign every attempt (Standard Webhooks) with the endpoint's secrets from FILE"),
    ("ca-file", "PEM", "PEM CA certificates trusted in addition to the platform's store (https://, rediss://)"),
    ("drain-ms", "N", "on SIGTERM/SIGINT, how long attempts in progress may take to finish [default: 5000]"),
    ("allow-private-targets", "", "deliver to loopback/private/link-local targets too (tests on loopback)"),
    ("no-skew-check", "", "do not ask the Redis script to compare now_ms with Redis TIME"),
    ("watch-policy", "", "reload --policy FILE when it changes (validated first)"),
];

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

/// `replay` (docs/health-dispatch.md section 4).
const REPLAY: &[Flag] = &[
    ("store", "FILE", "the journal (its one writer while this runs) (required)"),
    ("policy", "FILE", "the current policy document (required)"),
    ("endpoint", "ID", "only dead letters of this endpoint id"),
    ("reason", "STOP_REASON", "only dead letters with this stop reason"),
    ("from-ms", "N", "only dead letters finished at or after N (Unix ms)"),
    ("to-ms", "N", "only dead letters finished before N (Unix ms)"),
    ("limit", "N", "at most N replays [default: 10000]"),
    ("now-ms", "N", "the instant of the replay (tests only) [default: the wall clock]"),
    ("artifact", "PATH", "the policy artifact [default: $RETRY_POLICY_ARTIFACT, else the copy built in]"),
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
            command_of("replica", "One fleet replica (docs/replica.md); prints one JSON line", REPLICA)
                .allow_negative_numbers(true),
            command_of("demo", "The storm demo: three local endpoints, /metrics", DEMO).allow_negative_numbers(true),
            command_of("endpoints", "Local endpoints with fixed statuses (tests, demos)", ENDPOINTS).arg(specs),
            command_of("bench", "Throughput with and without a storm; Redis round trips", BENCH),
            command_of("replay", "Replay dead letters of a journal as new events; prints one JSON line", REPLAY),
        ])
}

/// The command line parsed: the command's name, its flags, and (for
/// `endpoints`) its positional specs. `Err` is clap's error: print it and
/// exit with its code (2 for a bad flag, 0 for --help/--version).
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<(String, Flags, Vec<String>), clap::Error> {
    let matches = command().try_get_matches_from(args)?;
    let (name, sub) = matches.subcommand().expect("a subcommand is required");
    let specs = sub.try_get_many::<String>("specs").ok().flatten().map_or_else(Vec::new, |s| s.cloned().collect());
    Ok((name.to_string(), flags_of(sub), specs))
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
