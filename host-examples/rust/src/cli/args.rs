//! The `retry-policy` command line, declared with clap's derive API. clap
//! refuses an unknown, repeated or valueless flag (exit 2, naming it) and
//! answers `--help` and `--version` (exit 0) before any artifact is loaded.

use clap::{Args as ClapArgs, CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "retry-policy",
    about = "Plan, lint, simulate, diff, bundle, inspect and publish retry policies with the policy artifact",
    after_help = super::exit::EXIT_STATUS,
    disable_help_subcommand = true,
    arg_required_else_help = true,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The artifact every command runs (`--component`).
#[derive(ClapArgs, Debug, Default, Clone)]
pub struct Component {
    /// the policy artifact [default: $RETRY_POLICY_ARTIFACT, else the copy built in;
    /// $RETRY_POLICY_ARTIFACT_SHA256 pins its sha256]
    #[arg(long, value_name = "PATH")]
    pub component: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The schedule of a policy document's classes (format 2 or 3), or of --window/--base/--factor/--cap/--jitter.
    #[command(allow_negative_numbers = true)]
    Plan(Plan),
    /// What `admit` gives an event of a class (format 2 or 3).
    #[command(allow_negative_numbers = true)]
    Admit(Admit),
    /// Lint a document (exit 0 clean, 1 errors, 2 unreadable).
    Lint(Lint),
    /// Simulate a scenario against a document.
    Simulate(Simulate),
    /// Compare two documents (exit 0 same, 1 some class changes, 2 unreadable).
    Diff(Diff),
    /// Embed a validated document into an artifact (exit 1 when it does not load or has lint errors).
    Bundle(Bundle),
    /// What an artifact is (exit 1 when it is refused, 2 when it cannot be read).
    Inspect(Inspect),
    /// Ship an artifact to the fleet through its Redis (docs/rollout.md): checked, signed, announced.
    #[cfg(feature = "rollout")]
    Publish(Publish),
    /// The fleet's rollout: status, promote the canary, roll back.
    #[cfg(feature = "rollout")]
    Rollout(Rollout),
}

/// The fleet's Redis (`--redis` or `--redis-cluster`).
#[cfg(feature = "rollout")]
#[derive(ClapArgs, Debug, Default, Clone)]
pub struct Store {
    /// the fleet's Redis: redis://[USER[:PASSWORD]@]HOST:PORT[/DB] or rediss://...
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,
    /// the same, as a Redis Cluster seed
    #[arg(long, value_name = "URL")]
    pub redis_cluster: Option<String>,
    /// PEM CA certificates trusted for rediss:// in addition to the platform's store
    #[arg(long, value_name = "PEM")]
    pub ca_file: Option<String>,
}

#[cfg(feature = "rollout")]
#[derive(ClapArgs, Debug)]
pub struct Publish {
    /// the artifact (checked as a replica checks it)
    #[arg(value_name = "ARTIFACT")]
    pub artifact: String,
    /// the signing key: PKCS#8 PEM Ed25519 (`openssl genpkey -algorithm ed25519`) (required)
    #[arg(long, value_name = "FILE")]
    pub key: Option<String>,
    /// publish as a canary for PERCENT (1 to 100) of the replicas [default: make it stable]
    #[arg(long, value_name = "PERCENT")]
    pub canary: Option<String>,
    #[command(flatten)]
    pub store: Store,
}

#[cfg(feature = "rollout")]
#[derive(ClapArgs, Debug)]
pub struct Rollout {
    #[command(subcommand)]
    pub action: RolloutAction,
}

#[cfg(feature = "rollout")]
#[derive(Subcommand, Debug)]
pub enum RolloutAction {
    /// The record and every replica seen in the last 5 s (bucket, running artifact, refusal).
    Status(RolloutStatus),
    /// The canary becomes stable (refused without a canary).
    Promote(RolloutChange),
    /// Drop the canary, else go back to the previous stable artifact.
    Rollback(RolloutChange),
}

#[cfg(feature = "rollout")]
#[derive(ClapArgs, Debug)]
pub struct RolloutStatus {
    /// print one JSON object {"record": ..., "replicas": [...]}
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: Store,
}

#[cfg(feature = "rollout")]
#[derive(ClapArgs, Debug)]
pub struct RolloutChange {
    #[command(flatten)]
    pub store: Store,
}

#[derive(ClapArgs, Debug)]
pub struct Plan {
    /// a policy document (JSON or TOML) [default: the artifact's embedded one]
    #[arg(long, value_name = "FILE")]
    pub policy: Option<String>,
    /// the retry window (e.g. 15m)
    #[arg(long, value_name = "DURATION")]
    pub window: Option<String>,
    /// the first delay (e.g. 2s)
    #[arg(long, value_name = "DURATION")]
    pub base: Option<String>,
    /// the growth factor
    #[arg(long, value_name = "X")]
    pub factor: Option<String>,
    /// the largest delay (e.g. 5m)
    #[arg(long, value_name = "DURATION")]
    pub cap: Option<String>,
    /// none, full or equal [default: full]
    #[arg(long, value_name = "KIND")]
    pub jitter: Option<String>,
    /// the most attempts [default: 16]
    #[arg(long, value_name = "N")]
    pub hard_cap: Option<String>,
    #[command(flatten)]
    pub component: Component,
}

#[derive(ClapArgs, Debug)]
pub struct Admit {
    /// a policy document [default: the artifact's embedded one]
    #[arg(long, value_name = "FILE")]
    pub policy: Option<String>,
    /// the event class
    #[arg(long, value_name = "NAME")]
    pub class: Option<String>,
    /// the admission instant [default: now]
    #[arg(long, value_name = "N")]
    pub now_ms: Option<String>,
    #[command(flatten)]
    pub component: Component,
}

#[derive(ClapArgs, Debug)]
pub struct Lint {
    /// the policy document
    #[arg(value_name = "FILE")]
    pub file: Vec<String>,
    /// text or json
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// an expected rate, ENDPOINT_OR_CLASS=N/s (repeatable)
    #[arg(long, value_name = "NAME=N/s")]
    pub rate: Vec<String>,
    #[command(flatten)]
    pub component: Component,
}

#[derive(ClapArgs, Debug)]
pub struct Simulate {
    /// the policy document
    #[arg(long, value_name = "FILE")]
    pub policy: Option<String>,
    /// the scenario
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<String>,
    /// the random seed
    #[arg(long, value_name = "N")]
    pub seed: Option<String>,
    /// write charts and tables to DIR
    #[arg(long, value_name = "DIR")]
    pub out: Option<String>,
    /// text or json
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// run the scenario twice, format 2 vs the same policy with `health` (its own sections, else a
    /// default one), and print one table of issue 19's figures and goals (--out DIR: the SVG chart;
    /// --format json: the rows, goals and store calls as data)
    #[arg(long)]
    pub compare_health: bool,
    #[command(flatten)]
    pub component: Component,
}

#[derive(ClapArgs, Debug)]
pub struct Diff {
    /// OLD NEW
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// text or json
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    #[command(flatten)]
    pub component: Component,
}

#[derive(ClapArgs, Debug)]
pub struct Bundle {
    /// the policy document to embed
    #[arg(long, value_name = "FILE")]
    pub policy: Option<String>,
    /// the output artifact
    #[arg(short = 'o', long = "out", value_name = "OUT.wasm")]
    pub out: Option<String>,
    /// yes: bundle even with lint errors [default: no]
    #[arg(long, value_name = "yes|no")]
    pub allow_lint_errors: Option<String>,
    #[command(flatten)]
    pub component: Component,
}

#[derive(ClapArgs, Debug)]
pub struct Inspect {
    /// the artifact
    #[arg(value_name = "FILE")]
    pub file: String,
    /// text or json [default: text]
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}

/// Parse `args` (the program name first); `version` is `--version`'s line.
/// `Err` is clap's error: print it and exit with its code (2 for a bad
/// flag, 0 for `--help`/`--version`).
pub fn parse(args: impl IntoIterator<Item = String>, version: &'static str) -> Result<Cli, clap::Error> {
    let matches = Cli::command().version(version).try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// The flags of a `lint`/`simulate`/`diff` as policy-tools' arguments.
pub fn tool_args(positional: Vec<String>, flags: Vec<(&str, Option<String>)>) -> policy_tools::commands::Args {
    policy_tools::commands::Args {
        positional,
        flags: flags.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(line: &str) -> Result<Cli, clap::Error> {
        parse(std::iter::once("retry-policy".to_string()).chain(line.split_whitespace().map(String::from)), "t 1")
    }

    #[test]
    fn the_derived_command_line_is_consistent() {
        Cli::command().version("t").debug_assert();
    }

    #[test]
    fn help_and_version_exit_0_and_bad_flags_exit_2_naming_them() {
        for line in [
            "--help",
            "--version",
            "plan --help",
            "lint --help",
            "bundle --help",
            "publish --help",
            "rollout status --help",
        ] {
            assert_eq!(run(line).unwrap_err().exit_code(), 0, "{line}");
        }
        for (line, flag) in [("plan --nope 1", "--nope"), ("plan --base 1 --base 2", "--base"), ("frob", "frob")] {
            let e = run(line).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{line}");
            assert!(e.to_string().contains(flag), "{line}: {e}");
        }
    }

    #[test]
    fn bundle_takes_dash_o_and_lint_repeats_rate() {
        match run("bundle --policy p.json -o out.wasm").unwrap().command {
            Command::Bundle(b) => {
                assert_eq!((b.policy.as_deref(), b.out.as_deref()), (Some("p.json"), Some("out.wasm")))
            }
            other => panic!("{other:?}"),
        }
        match run("lint doc.json --rate a=1/s --rate b=2/s").unwrap().command {
            Command::Lint(l) => assert_eq!((l.file.len(), l.rate.len()), (1, 2)),
            other => panic!("{other:?}"),
        }
    }
}
