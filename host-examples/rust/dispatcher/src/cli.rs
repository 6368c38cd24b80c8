//! The dispatcher's command line, declared with clap's derive API: one
//! struct per command, one field per flag. clap refuses an unknown,
//! repeated or valueless flag (exit 2, naming it) and answers `--help` and
//! `--version` (exit 0) before anything is loaded. The values are then
//! read through [`Flags`] (typed, with errors naming the flag), as every
//! command did before.

use crate::args::Flags;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "retry-policy-dispatcher",
    version,
    propagate_version = true,
    about = "A webhook dispatcher on the retry-policy component",
    disable_help_subcommand = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process: the size of the largest command is irrelevant.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// One fleet replica (docs/replica.md); prints one JSON line.
    #[command(allow_negative_numbers = true)]
    Replica(Replica),
    /// The storm demo: three local endpoints, /metrics.
    #[command(allow_negative_numbers = true)]
    Demo(Demo),
    /// Local endpoints with fixed statuses (tests, demos).
    Endpoints(Endpoints),
    /// Throughput with and without a storm; Redis round trips.
    Bench(Bench),
    /// Replay dead letters of a journal as new events; prints one JSON line.
    Replay(Replay),
}

/// `replay` (docs/health-dispatch.md section 4).
#[derive(Args, Debug)]
pub struct Replay {
    /// the journal (its one writer while this runs) (required)
    #[arg(long, value_name = "FILE")]
    store: Option<String>,
    /// the current policy document (required)
    #[arg(long, value_name = "FILE")]
    policy: Option<String>,
    /// only dead letters of this endpoint id
    #[arg(long, value_name = "ID")]
    endpoint: Option<String>,
    /// only dead letters with this stop reason
    #[arg(long, value_name = "STOP_REASON")]
    reason: Option<String>,
    /// only dead letters finished at or after N (Unix ms)
    #[arg(long, value_name = "N")]
    from_ms: Option<String>,
    /// only dead letters finished before N (Unix ms)
    #[arg(long, value_name = "N")]
    to_ms: Option<String>,
    /// at most N replays [default: 10000]
    #[arg(long, value_name = "N")]
    limit: Option<String>,
    /// the instant of the replay (tests only) [default: the wall clock]
    #[arg(long, value_name = "N")]
    now_ms: Option<String>,
    /// the policy artifact [default: $RETRY_POLICY_ARTIFACT, else the copy built in]
    #[arg(long, value_name = "PATH")]
    artifact: Option<String>,
}

/// `replica` (docs/replica.md, "Flags").
#[derive(Args, Debug)]
pub struct Replica {
    /// http:// or https:// URL every attempt is sent to (required)
    #[arg(long, value_name = "URL")]
    target: Option<String>,
    /// the budget's endpoint id (required)
    #[arg(long, value_name = "ID")]
    endpoint_id: Option<String>,
    /// events to admit (required)
    #[arg(long, value_name = "N")]
    events: Option<String>,
    /// events in progress at once [default: 8]
    #[arg(long, value_name = "C")]
    concurrency: Option<String>,
    /// the policy document (JSON or TOML) [default: the artifact's embedded one]
    #[arg(long, value_name = "FILE")]
    policy: Option<String>,
    /// the fleet budget store: redis://[USER[:PASSWORD]@]HOST:PORT[/DB] or rediss://
    #[arg(long, value_name = "URL")]
    redis: Option<String>,
    /// the same, as a Redis Cluster seed
    #[arg(long, value_name = "URL")]
    redis_cluster: Option<String>,
    /// stop admitting events N ms after start
    #[arg(long, value_name = "N")]
    deadline_ms: Option<String>,
    /// the event class [default: storm]
    #[arg(long, value_name = "NAME")]
    class: Option<String>,
    /// admissions per second
    #[arg(long, value_name = "EVENTS_PER_S")]
    rate: Option<String>,
    /// journal every event (JSON lines, fsynced, one writer) to FILE; its pending events are continued
    #[arg(long, value_name = "FILE")]
    store: Option<String>,
    /// first continue the pending events of another replica's journal
    #[arg(long, value_name = "FILE")]
    resume: Option<String>,
    /// the old name of --artifact
    #[arg(long, value_name = "PATH", hide = true)]
    component: Option<String>,
    /// the policy artifact [default: $RETRY_POLICY_ARTIFACT, else the copy built in]
    #[arg(long, value_name = "PATH")]
    artifact: Option<String>,
    /// serve GET /metrics on HOST:PORT (empty HOST: 127.0.0.1, port 0: any free port)
    #[arg(long, value_name = "HOST:PORT")]
    metrics_addr: Option<String>,
    /// poll the artifact file every N ms (N >= 1) and swap when its sha256 changes
    #[arg(long, value_name = "N")]
    watch_artifact_ms: Option<String>,
    /// follow the fleet's published artifact (docs/rollout.md) through --redis or --redis-cluster (required),
    /// verified against --trust-key (required): one tick before the first admission, then every --rollout-poll-ms
    #[arg(long)]
    artifact_from_redis: bool,
    /// PEM file of the Ed25519 public keys whose signatures are trusted (only with --artifact-from-redis)
    #[arg(long, value_name = "FILE")]
    trust_key: Option<String>,
    /// this replica's id in the rollout's status records and canary rule (1 to 200 bytes)
    /// [default: rust-<hostname>-<pid>]
    #[arg(long, value_name = "ID")]
    replica_id: Option<String>,
    /// the rollout follower's tick, 50 to 60000 ms [default: 500]
    #[arg(long, value_name = "N")]
    rollout_poll_ms: Option<String>,
    /// add N ms (may be negative) to this replica's clock
    #[arg(long, value_name = "N")]
    clock_offset_ms: Option<String>,
    /// bound on one budget store call [default: 250]
    #[arg(long, value_name = "N")]
    store_timeout_ms: Option<String>,
    /// bound on one HTTP attempt, connect to last body byte [default: 30000]
    #[arg(long, value_name = "N")]
    attempt_deadline_ms: Option<String>,
    /// connect timeout [default: 2000]
    #[arg(long, value_name = "N")]
    connect_timeout_ms: Option<String>,
    /// sign every attempt (Standard Webhooks) with the endpoint's secrets from FILE
    #[arg(long, value_name = "FILE")]
    signing_secrets: Option<String>,
    /// PEM CA certificates trusted in addition to the platform's store (https://, rediss://)
    #[arg(long, value_name = "PEM")]
    ca_file: Option<String>,
    /// on SIGTERM/SIGINT, how long attempts in progress may take to finish [default: 5000]
    #[arg(long, value_name = "N")]
    drain_ms: Option<String>,
    /// deliver to loopback/private/link-local targets too (tests on loopback)
    #[arg(long)]
    allow_private_targets: bool,
    /// do not ask the Redis script to compare now_ms with Redis TIME
    #[arg(long)]
    no_skew_check: bool,
    /// reload --policy FILE when it changes (validated first)
    #[arg(long)]
    watch_policy: bool,
}

/// `demo`: the storm demo (scripts/demo).
#[derive(Args, Debug)]
pub struct Demo {
    /// events [default: 3000]
    #[arg(long, value_name = "N")]
    events: Option<String>,
    /// events per second [default: 300]
    #[arg(long, value_name = "N")]
    rate: Option<String>,
    /// seconds of quiet after the storm [default: 3]
    #[arg(long, value_name = "S")]
    quiet_s: Option<String>,
    /// events per second during the quiet [default: 10]
    #[arg(long, value_name = "N")]
    quiet_rate: Option<String>,
    /// deliveries in flight [default: 8]
    #[arg(long, value_name = "C")]
    concurrency: Option<String>,
    /// the policy document
    #[arg(long, value_name = "FILE")]
    policy: Option<String>,
    /// the fleet budget store
    #[arg(long, value_name = "URL")]
    redis: Option<String>,
    /// journal every event to FILE
    #[arg(long, value_name = "FILE")]
    store: Option<String>,
    /// serve GET /metrics on HOST:PORT [default: 127.0.0.1:0]
    #[arg(long, value_name = "HOST:PORT")]
    metrics_addr: Option<String>,
    /// keep serving /metrics for S seconds after the run [default: 0]
    #[arg(long, value_name = "S")]
    hold_s: Option<String>,
    /// the old name of --artifact
    #[arg(long, value_name = "PATH", hide = true)]
    component: Option<String>,
    /// the policy artifact
    #[arg(long, value_name = "PATH")]
    artifact: Option<String>,
    /// bound on one budget store call [default: 250]
    #[arg(long, value_name = "N")]
    store_timeout_ms: Option<String>,
    /// required: the demo's endpoints are on loopback, refused by default
    #[arg(long)]
    allow_private_targets: bool,
}

/// `endpoints`: local endpoints with fixed statuses.
#[derive(Args, Debug)]
pub struct Endpoints {
    /// NAME=STATUS for each endpoint (e.g. ok=200 broken=503), or NAME=DOWN[+RA<S>]~UP@DOWN_MS: DOWN (with
    /// `Retry-After: S`) until DOWN_MS after its first POST, then UP (e.g. flaky=503~200@6000)
    #[arg(value_name = "NAME=STATUS", required = true)]
    specs: Vec<String>,
    /// log every request on stderr
    #[arg(long)]
    log: bool,
    /// the address to listen on [default: 127.0.0.1]
    #[arg(long, value_name = "HOST")]
    host: Option<String>,
}

/// `bench`: throughput with and without a storm.
#[derive(Args, Debug)]
pub struct Bench {
    /// a Redis budget store to measure round trips against
    #[arg(long, value_name = "URL")]
    redis: Option<String>,
    /// healthy events per round [default: 4000]
    #[arg(long, value_name = "N")]
    healthy: Option<String>,
    /// storm events, in % of the healthy ones [default: 10]
    #[arg(long, value_name = "PCT")]
    storm_share: Option<String>,
    /// deliveries in flight [default: 8]
    #[arg(long, value_name = "C")]
    concurrency: Option<String>,
    /// rounds [default: 5]
    #[arg(long, value_name = "N")]
    rounds: Option<String>,
    /// the old name of --artifact
    #[arg(long, value_name = "PATH", hide = true)]
    component: Option<String>,
    /// the policy artifact
    #[arg(long, value_name = "PATH")]
    artifact: Option<String>,
}

/// The command line parsed: the command's name, its flags, and (for
/// `endpoints`) its positional specs. `Err` is clap's error: print it and
/// exit with its code (2 for a bad flag, 0 for --help/--version).
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<(String, Flags, Vec<String>), clap::Error> {
    let matches = Cli::command().try_get_matches_from(args)?;
    // Checked against the derived types (a mismatch is a bug here, reported as clap's error).
    let cli = Cli::from_arg_matches(&matches)?;
    let (name, sub) = matches.subcommand().expect("a subcommand is required");
    let specs = match cli.command {
        Command::Endpoints(e) => e.specs,
        _ => Vec::new(),
    };
    Ok((name.to_string(), flags_of(sub), specs))
}

/// Every flag given, under its long name (`endpoint_id` -> `endpoint-id`).
fn flags_of(m: &ArgMatches) -> Flags {
    let mut values = Vec::new();
    let mut switches = Vec::new();
    for id in m.ids() {
        let id = id.as_str();
        let long = id.replace('_', "-");
        if let Ok(Some(v)) = m.try_get_one::<String>(id) {
            values.push((long, v.clone()));
        } else if let Ok(Some(true)) = m.try_get_one::<bool>(id) {
            switches.push(long);
        }
    }
    Flags::from_parts(values, switches)
}

#[cfg(test)]
#[path = "tests_cli.rs"]
mod tests;
