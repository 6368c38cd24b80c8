//! Scenario files (TOML or JSON): endpoints with failure patterns, traffic
//! per endpoint and class, replicas and their budget scope, and variants
//! (the same storm under other budget settings, for comparisons).

use serde::Deserialize;

/// Where replicas keep their budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// One store for the fleet (Redis in production).
    #[default]
    Shared,
    /// Each replica counts alone (a process-local store).
    PerReplica,
}

impl Scope {
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Shared => "shared",
            Scope::PerReplica => "per_replica",
        }
    }
}

/// How an endpoint answers, as a function of virtual time (seconds since start).
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Failure {
    /// 200 always.
    #[default]
    Healthy,
    /// 503 always.
    #[serde(rename = "always_503")]
    Always503,
    /// 200 for `up_s`, then 503 for `down_s`, repeating (starts up).
    Flapping { up_s: u64, down_s: u64 },
    /// 429 with `Retry-After: <retry_after_s>` always.
    RateLimited { retry_after_s: u64 },
    /// 200, except `status` (default 503) from `from_s` to `to_s`.
    Outage {
        from_s: u64,
        to_s: u64,
        #[serde(default = "default_outage_status")]
        status: u16,
    },
    /// A receiver with a capacity: the first `per_s` requests of each
    /// second (virtual, from the start) get 200, the rest 429 with
    /// `Retry-After: <retry_after_s>` (default 1).
    Capacity {
        per_s: u64,
        #[serde(default = "default_capacity_retry_after")]
        retry_after_s: u64,
    },
}

fn default_capacity_retry_after() -> u64 {
    1
}

fn default_outage_status() -> u16 {
    503
}

impl Failure {
    pub fn is_healthy(&self) -> bool {
        matches!(self, Failure::Healthy)
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    pub id: String,
    #[serde(default)]
    pub failure: Failure,
    /// Time from sending an attempt to its response.
    #[serde(default = "default_latency")]
    pub latency_ms: u64,
}

fn default_latency() -> u64 {
    40
}

/// New events for one endpoint and class, Poisson arrivals.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Traffic {
    pub endpoint: String,
    pub class: String,
    pub rate_per_s: f64,
    /// Arrivals from this second (default 0) ...
    #[serde(default)]
    pub from_s: u64,
    /// ... until this one (default: the scenario's duration).
    pub to_s: Option<u64>,
}

/// The same storm with other settings; unset fields keep the scenario's.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub name: String,
    pub replicas: Option<u32>,
    pub budget: Option<Scope>,
    pub ratio: Option<f64>,
    pub min_sample: Option<u64>,
    pub sliding: Option<bool>,
    pub budget_window_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub about: String,
    /// Arrivals stop here; started events run to their stop (see `drain_s`).
    pub duration_s: u64,
    /// Longest time after `duration_s` to let started events finish (default 3600).
    #[serde(default = "default_drain")]
    pub drain_s: u64,
    #[serde(default = "default_replicas")]
    pub replicas: u32,
    #[serde(default)]
    pub budget: Scope,
    /// Default seed (`--seed` overrides).
    #[serde(default)]
    pub seed: u64,
    /// Virtual wall clock at t = 0 (default: a minute boundary in 2023).
    #[serde(default = "default_start")]
    pub start_ms: u64,
    pub endpoints: Vec<Endpoint>,
    pub traffic: Vec<Traffic>,
    #[serde(default)]
    pub variants: Vec<Variant>,
    /// Events busy at once per replica (the engine's `max_in_flight`;
    /// default: so many that the engine never throttles).
    pub max_in_flight: Option<u32>,
}

fn default_drain() -> u64 {
    3600
}
fn default_replicas() -> u32 {
    1
}
fn default_start() -> u64 {
    1_700_000_040_000
}

impl Scenario {
    /// Parse TOML (when `path` ends in `.toml`) or JSON, and check references.
    pub fn parse(path: &str, text: &str) -> Result<Scenario, String> {
        let s: Scenario = if path.ends_with(".toml") {
            toml::from_str(text).map_err(|e| format!("{path}: {}", e.to_string().replace('\n', " ")))?
        } else {
            serde_json::from_str(text).map_err(|e| format!("{path}: {e}"))?
        };
        for t in &s.traffic {
            if !s.endpoints.iter().any(|e| e.id == t.endpoint) {
                return Err(format!("{path}: traffic names endpoint `{}`, which is not defined", t.endpoint));
            }
            if !(t.rate_per_s.is_finite() && t.rate_per_s > 0.0) {
                return Err(format!("{path}: traffic rate_per_s must be positive"));
            }
        }
        if s.replicas == 0 || s.variants.iter().any(|v| v.replicas == Some(0)) {
            return Err(format!("{path}: replicas must be at least 1"));
        }
        if s.max_in_flight == Some(0) {
            return Err(format!("{path}: max_in_flight must be at least 1"));
        }
        Ok(s)
    }

    pub fn read(path: &str) -> Result<Scenario, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        Scenario::parse(path, &text)
    }

    /// The variants to run: the listed ones, or the scenario as written.
    pub fn runs(&self) -> Vec<Variant> {
        if self.variants.is_empty() {
            vec![Variant { name: "as_written".into(), ..Variant::default() }]
        } else {
            self.variants.clone()
        }
    }
}
