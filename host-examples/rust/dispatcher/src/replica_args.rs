//! The `replica` and `replay` command lines, judged by policy-core's
//! `replica_args` (the component's `replica-args`, linked natively here: no
//! artifact is loaded to read them). This module only builds the request
//! (the Rust extras, the default replica id, `$RETRY_POLICY_ARTIFACT`) and
//! reads the answer into typed settings; the flag table, the value checks,
//! the defaults, the rules across flags and the `--help` texts are the
//! core's, the same for every language's replica.

use retry_policy_core::replica_args;
use serde::Deserialize;
use serde_json::json;

/// The language extras this replica honours (policy-core's table): all five.
pub const EXTRAS: [&str; 5] =
    ["--signing-secrets", "--class", "--connect-timeout-ms", "--no-skew-check", "--watch-policy"];

/// What a command line asks for.
#[derive(Debug)]
pub enum Judged {
    /// `--help`/`-h`: this text on stdout, exit 0.
    Help(String),
    /// `--version`: the version line on stdout, exit 0.
    Version,
    Replica(Box<ReplicaSettings>),
    Replay(ReplaySettings),
}

/// `replica`'s settings: one member per flag of the core's table (an
/// answer member without a field here is refused: every flag is mapped).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicaSettings {
    #[serde(rename = "command")]
    _command: String,
    pub target: String,
    pub endpoint_id: String,
    pub events: u64,
    pub concurrency: usize,
    pub policy: Option<String>,
    /// `--artifact`, else `$RETRY_POLICY_ARTIFACT` (`None`: the copy built in).
    pub artifact: Option<String>,
    pub watch_artifact_ms: Option<u64>,
    pub redis: Option<String>,
    pub redis_cluster: Option<String>,
    pub artifact_from_redis: bool,
    pub trust_key: Option<String>,
    /// `--replica-id`, else `rust-<hostname>-<pid>`.
    pub replica_id: String,
    pub rollout_poll_ms: u64,
    pub ca_file: Option<String>,
    pub store_timeout_ms: u64,
    pub attempt_deadline_ms: u64,
    pub deadline_ms: Option<u64>,
    pub drain_ms: u64,
    pub clock_offset_ms: i64,
    pub store: Option<String>,
    pub resume: Option<String>,
    pub metrics_addr: Option<HostPort>,
    pub allow_private_targets: bool,
    /// Events per second.
    pub rate: Option<f64>,
    pub signing_secrets: Option<String>,
    pub class: String,
    pub connect_timeout_ms: u64,
    pub no_skew_check: bool,
    pub watch_policy: bool,
}

/// `replay`'s settings (docs/health-dispatch.md section 4).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplaySettings {
    #[serde(rename = "command")]
    _command: String,
    pub store: String,
    pub policy: String,
    pub endpoint: Option<String>,
    pub reason: Option<String>,
    pub from_ms: Option<u64>,
    pub to_ms: Option<u64>,
    pub limit: Option<u64>,
    pub now_ms: Option<u64>,
    /// `--artifact` (`None`: `$RETRY_POLICY_ARTIFACT`, else the copy built in).
    pub artifact: Option<String>,
}

/// `--metrics-addr` as the core read it (an empty HOST is already 127.0.0.1).
#[derive(Debug, Deserialize)]
pub struct HostPort {
    pub host: String,
    pub port: u16,
}

impl HostPort {
    /// The address to bind (an IPv6 host in brackets).
    pub fn bind(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// `command` (`replica` or `replay`) with its arguments (after the command
/// name). `Err`: the one line to print before exit 2 (it names the flag).
pub fn judge(command: &str, args: &[String]) -> Result<Judged, String> {
    judge_with(command, args, retry_policy_host::artifact::env_path().and_then(|p| p.into_string().ok()))
}

/// [`judge`] with `artifact_env` as `$RETRY_POLICY_ARTIFACT`.
fn judge_with(command: &str, args: &[String], artifact_env: Option<String>) -> Result<Judged, String> {
    // `replica --component` is the old name of `--artifact` (hidden).
    let renamed = |a: &String| match a.strip_prefix("--component") {
        Some(rest) if command == "replica" && (rest.is_empty() || rest.starts_with('=')) => format!("--artifact{rest}"),
        _ => a.clone(),
    };
    let args: Vec<String> = args.iter().map(renamed).collect();
    let replica_id = format!("rust-{}-{}", retry_policy_host::rollout::hostname(), std::process::id());
    let request = json!({"command": command, "args": args, "extras": EXTRAS, "replica_id": replica_id, "artifact_env": artifact_env});
    let answer: serde_json::Value = serde_json::from_str(&replica_args::judge_text(&request.to_string())?)
        .map_err(|e| format!("replica-args answered no JSON: {e}"))?;
    let unread = |e: serde_json::Error| format!("replica-args answer not understood: {e}");
    Ok(match answer["command"].as_str() {
        Some("help") => Judged::Help(replica_args::usage(command)),
        Some("version") => Judged::Version,
        Some("replay") => Judged::Replay(ReplaySettings::deserialize(answer).map_err(unread)?),
        _ => Judged::Replica(Box::new(ReplicaSettings::deserialize(answer).map_err(unread)?)),
    })
}

#[cfg(test)]
#[path = "tests_replica_args.rs"]
mod tests;
