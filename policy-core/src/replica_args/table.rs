//! The REPLICA command line's flags (docs/replica.md, "Flags"), once: what
//! each flag takes, its default and its help line. [`super::judge`] reads
//! arguments against it and `tools/witgen usage` writes each host's
//! `--help` text and flag names from it (GENERATED files, so `--help`
//! works without loading the artifact).

/// What a flag's value must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No value: present or not.
    Switch,
    /// Any non-empty text.
    Text,
    /// A file path (non-empty).
    Path,
    /// A whole number in `min..=max`.
    Whole { min: u64, max: u64 },
    /// A whole number in `-max..=max`.
    Signed { max: u64 },
    /// A finite decimal number > 0.
    Positive,
    /// An `http://` or `https://` URL with a host.
    HttpUrl,
    /// A `redis://` or `rediss://` URL with a host, its path a database number.
    RedisUrl,
    /// `HOST:PORT` (`[IPv6]:PORT`; an empty HOST is 127.0.0.1; port 0 any free port).
    HostPort,
    /// One of the contract's stop reasons.
    StopReason,
}

/// One flag: its name (with `--`), the value's name in the help, what it
/// takes, its default in the answer (JSON text; `null`: absent), whether it
/// is a language extra (a host honours it only when it says so) and its help.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    pub name: &'static str,
    pub value: &'static str,
    pub kind: Kind,
    pub default: &'static str,
    pub extra: bool,
    pub help: &'static str,
}

const fn flag(name: &'static str, value: &'static str, kind: Kind, default: &'static str, help: &'static str) -> Flag {
    Flag { name, value, kind, default, extra: false, help }
}

const fn extra(name: &'static str, value: &'static str, kind: Kind, default: &'static str, help: &'static str) -> Flag {
    Flag { name, value, kind, default, extra: true, help }
}

/// Below 2^53: exact in every language's numbers (JavaScript's included).
const COUNT: Kind = Kind::Whole { min: 0, max: (1 << 53) - 1 };
/// An instant (Unix ms).
const UNIX_MS: Kind = COUNT;
/// A duration: at most 10^12 ms (31.7 years), inside every language's
/// duration type (Go's holds 9.2 x 10^12 ms).
const MAX_DURATION_MS: u64 = 1_000_000_000_000;
const MS: Kind = Kind::Whole { min: 0, max: MAX_DURATION_MS };
const MS_1: Kind = Kind::Whole { min: 1, max: MAX_DURATION_MS };

/// `replica` (the run): docs/replica.md's table, then the language extras.
pub const REPLICA: &[Flag] = &[
    flag("--target", "URL", Kind::HttpUrl, "null", "http:// or https:// URL every attempt is sent to (required)"),
    flag("--endpoint-id", "ID", Kind::Text, "null", "the budget's endpoint id, the store key's hash tag (required)"),
    flag("--events", "N", COUNT, "null", "events to admit (required; 0: only resume)"),
    flag(
        "--concurrency",
        "C",
        Kind::Whole { min: 1, max: 65535 },
        "8",
        "events in progress at once, retry waits included",
    ),
    flag(
        "--policy",
        "FILE",
        Kind::Path,
        "null",
        "policy document (JSON or TOML), class \"storm\" [default: the artifact's embedded one]",
    ),
    flag(
        "--artifact",
        "PATH",
        Kind::Path,
        "null",
        "the policy artifact [default: $RETRY_POLICY_ARTIFACT, else the package's copy]",
    ),
    flag(
        "--watch-artifact-ms",
        "N",
        MS_1,
        "null",
        "poll the artifact file every N ms and swap when its sha256 changes (needs a file)",
    ),
    flag(
        "--redis",
        "URL",
        Kind::RedisUrl,
        "null",
        "the fleet budget store: redis[s]://[USER[:PASSWORD]@]HOST:PORT[/DB] [default: in memory]",
    ),
    flag(
        "--redis-cluster",
        "URL",
        Kind::RedisUrl,
        "null",
        "the same, as a Redis Cluster seed (slots, MOVED and ASK followed)",
    ),
    flag(
        "--artifact-from-redis",
        "",
        Kind::Switch,
        "false",
        "follow the fleet's published artifact (docs/rollout.md); needs --redis or --redis-cluster and --trust-key",
    ),
    flag(
        "--trust-key",
        "FILE",
        Kind::Path,
        "null",
        "PEM Ed25519 public keys whose signatures are trusted (only with --artifact-from-redis)",
    ),
    flag(
        "--replica-id",
        "ID",
        Kind::Text,
        "null",
        "this replica's id in the rollout's records, 1 to 200 bytes [default: <language>-<hostname>-<pid>]",
    ),
    flag("--rollout-poll-ms", "N", Kind::Whole { min: 50, max: 60000 }, "500", "the rollout follower's tick"),
    flag(
        "--ca-file",
        "PEM",
        Kind::Path,
        "null",
        "CA certificates trusted in addition to the platform's store (https://, rediss://)",
    ),
    flag(
        "--store-timeout-ms",
        "N",
        MS_1,
        "250",
        "bound on one budget store call; past it the call failed (retries fail closed)",
    ),
    flag("--attempt-deadline-ms", "N", MS_1, "30000", "bound on one HTTP attempt, connect to last body byte"),
    flag("--deadline-ms", "N", MS, "null", "stop admitting events N ms after start; started events run to their stop"),
    flag("--drain-ms", "N", MS, "5000", "on SIGTERM/SIGINT, how long attempts in progress may take to finish"),
    flag(
        "--clock-offset-ms",
        "N",
        Kind::Signed { max: MAX_DURATION_MS },
        "0",
        "add N ms (may be negative) to this replica's clock",
    ),
    flag(
        "--store",
        "FILE",
        Kind::Path,
        "null",
        "journal the run in FILE (docs/journal.md); its pending events are continued first",
    ),
    flag("--resume", "FILE", Kind::Path, "null", "continue another run's journal (any language's), read only"),
    flag(
        "--metrics-addr",
        "HOST:PORT",
        Kind::HostPort,
        "null",
        "serve GET /metrics (docs/metrics.md) on HOST:PORT; the URL is logged",
    ),
    flag(
        "--allow-private-targets",
        "",
        Kind::Switch,
        "false",
        "allow targets that resolve to loopback, private or other refused addresses",
    ),
    flag(
        "--rate",
        "N",
        Kind::Positive,
        "null",
        "admit at most N events per second: the k-th (from 0) no earlier than k*1000/N ms after the start",
    ),
    extra(
        "--signing-secrets",
        "FILE",
        Kind::Path,
        "null",
        "sign every attempt (Standard Webhooks) with the endpoint's secrets of FILE",
    ),
    extra("--class", "NAME", Kind::Text, "\"storm\"", "the event class"),
    extra("--connect-timeout-ms", "N", MS_1, "2000", "connect timeout"),
    extra(
        "--no-skew-check",
        "",
        Kind::Switch,
        "false",
        "do not ask the Redis script to compare now_ms with Redis TIME",
    ),
    extra("--watch-policy", "", Kind::Switch, "false", "reload --policy FILE when it changes (validated first)"),
];

/// `replica replay`: dead letters of a journal replayed as new events (docs/health-dispatch.md section 4).
pub const REPLAY: &[Flag] = &[
    flag("--store", "FILE", Kind::Path, "null", "the journal (its one writer while this runs) (required)"),
    flag("--policy", "FILE", Kind::Path, "null", "the current policy document (required)"),
    flag("--endpoint", "ID", Kind::Text, "null", "only dead letters of this endpoint id"),
    flag("--reason", "STOP_REASON", Kind::StopReason, "null", "only dead letters with this stop reason"),
    flag("--from-ms", "N", UNIX_MS, "null", "only dead letters finished at or after N (Unix ms)"),
    flag("--to-ms", "N", UNIX_MS, "null", "only dead letters finished before N (Unix ms)"),
    flag("--limit", "N", MS_1, "null", "at most N replays [default: the engine's, 10000]"),
    flag("--now-ms", "N", UNIX_MS, "null", "the instant of the replay (tests) [default: the wall clock]"),
    flag(
        "--artifact",
        "PATH",
        Kind::Path,
        "null",
        "the policy artifact [default: $RETRY_POLICY_ARTIFACT, else the package's copy]",
    ),
];

/// Flags a command must be given.
pub fn required(command: &str) -> &'static [&'static str] {
    match command {
        "replay" => &["--store", "--policy"],
        _ => &["--target", "--endpoint-id", "--events"],
    }
}

/// The flags of `command` (`replica` or `replay`).
pub fn flags(command: &str) -> Option<&'static [Flag]> {
    match command {
        "replica" => Some(REPLICA),
        "replay" => Some(REPLAY),
        _ => None,
    }
}
