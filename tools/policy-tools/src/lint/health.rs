//! The `health` rules (format 3, docs/health.md): each class's effective
//! section against its window, its budget and the expected rates. The
//! sections come from the engine (`load_health_document`); the bounds some
//! rules use are the measured findings of docs/health-simulation.md.

use retry_policy_core::health::Health;
use retry_policy_core::json::Value;

use super::rules::ClassFacts;
use super::{Finding, Rate, Severity};
use crate::human::ms;

/// The outage a release must drain inside the window, as a share of the
/// window: finding 5's 10-minute outage in a 15-minute window.
pub const DRAIN_OUTAGE_SHARE: f64 = 2.0 / 3.0;

/// Where a class's section comes from (read from the document's tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Its own `health` member (paths `classes.<name>.health.*`).
    Own,
    /// The document's top-level section (paths `health.*`).
    Document,
    /// `"health": null` while the document has a top-level section.
    OptedOut,
    /// No section anywhere: format 2.
    None,
}

impl Origin {
    /// The origin of class `name`'s section in `tree`.
    pub fn of(tree: &Value, name: &str) -> Origin {
        let top = matches!(tree.get("health"), Some(v) if !matches!(v, Value::Null));
        let own = tree.get("classes").and_then(|c| c.get(name)).and_then(|c| c.get("health"));
        match (own, top) {
            (Some(Value::Null), true) => Origin::OptedOut,
            (Some(Value::Null), false) => Origin::None,
            (Some(_), _) => Origin::Own,
            (None, true) => Origin::Document,
            (None, false) => Origin::None,
        }
    }

    /// Whether the section this origin names writes `key` out.
    fn written(self, tree: &Value, class: &str, key: &str) -> bool {
        let section = match self {
            Origin::Own => tree.get("classes").and_then(|c| c.get(class)).and_then(|c| c.get("health")),
            Origin::Document => tree.get("health"),
            Origin::OptedOut | Origin::None => None,
        };
        section.and_then(|h| h.get(key)).is_some()
    }
}

struct Section<'a> {
    c: &'a ClassFacts,
    h: &'a Health,
    origin: Origin,
}

impl Section<'_> {
    /// The field's path where the section is written.
    fn field(&self, rest: &str) -> String {
        match self.origin {
            Origin::Own => self.c.field(&format!("health.{rest}")),
            _ => format!("health.{rest}"),
        }
    }

    /// `class X's` for a document-wide section, so its findings say which class they judge.
    fn whose(&self) -> String {
        match self.origin {
            Origin::Own => String::new(),
            _ => format!("(document-wide, for class {}) ", self.c.name),
        }
    }
}

/// The health rules for one class, whose effective section is `health`.
pub fn check(
    c: &ClassFacts,
    tree: &Value,
    health: Option<&Health>,
    rates: &[Rate],
    classes: &[String],
) -> Vec<Finding> {
    let origin = Origin::of(tree, &c.name);
    let mut out = Vec::new();
    let Some(h) = health else {
        if origin == Origin::OptedOut {
            out.push(Finding::new(
                Severity::Info,
                "health_class_opts_out",
                c.field("health"),
                "\"health\": null opts this class out of the document's section: its budget refusals dead-letter retry_budget_exhausted and nothing holds it during an outage (format 2)",
            ));
        }
        return out;
    };
    let s = Section { c, h, origin };
    let window = c.policy.window_ms;
    cache(&s, origin.written(tree, &c.name, "cache_ms"), &mut out);
    if h.pause_max_ms > 0 && h.pause_max_ms >= window {
        out.push(
            Finding::new(
                Severity::Warning,
                "health_pause_outlives_window",
                s.field("pause.max_ms"),
                format!(
                    "{}pause.max_ms {} >= the {} window: one Retry-After that long holds every event until its window ends, so they all dead-letter retry_window_elapsed; cap it well inside the window",
                    s.whose(),
                    ms(h.pause_max_ms),
                    ms(window)
                ),
            )
            .with("pause_max_ms", h.pause_max_ms)
            .with("window_ms", window),
        );
    }
    release(&s, rates, classes, &mut out);
    floor(&s, rates, classes, &mut out);
    if let Some(circuit) = &h.circuit {
        let b = c.policy.budget;
        if circuit.min_sample > b.min_sample {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "health_circuit_sample_above_budget",
                    s.field("circuit.min_sample"),
                    format!(
                        "{}circuit.min_sample {} is above the budget's {}: an endpoint with {}..{} attempts per {} window is throttled by the budget but its circuit never opens (no cooldown, no probes, its retries keep going)",
                        s.whose(),
                        circuit.min_sample,
                        b.min_sample,
                        b.min_sample,
                        circuit.min_sample - 1,
                        ms(b.window_ms)
                    ),
                )
                .with("circuit_min_sample", circuit.min_sample)
                .with("budget_min_sample", b.min_sample),
            );
        }
        if circuit.cooldown_ms >= window {
            out.push(
                Finding::new(
                    Severity::Error,
                    "health_cooldown_outlives_window",
                    s.field("circuit.cooldown_ms"),
                    format!(
                        "{}circuit.cooldown_ms {} >= the {} window: the first opening holds every event past its window, so none is ever probed or released; shorten the cooldown",
                        s.whose(),
                        ms(circuit.cooldown_ms),
                        ms(window)
                    ),
                )
                .with("cooldown_ms", circuit.cooldown_ms)
                .with("window_ms", window),
            );
        } else if circuit.cooldown_max_ms >= window {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "health_cooldown_outlives_window",
                    s.field("circuit.cooldown_max_ms"),
                    format!(
                        "{}circuit.cooldown_max_ms {} >= the {} window: after a few failed probes the cooldown outlasts every held event, which then dead-letters retry_window_elapsed without a probe; cap it below the window",
                        s.whose(),
                        ms(circuit.cooldown_max_ms),
                        ms(window)
                    ),
                )
                .with("cooldown_max_ms", circuit.cooldown_max_ms)
                .with("window_ms", window),
            );
        }
    }
    if !h.hold_budget_refusals {
        out.push(Finding::new(
            Severity::Warning,
            "health_drops_budget_refusals",
            s.field("hold_budget_refusals"),
            format!(
                "{}hold_budget_refusals = false: a retry the budget refuses dead-letters retry_budget_exhausted as in format 2, so an outage shorter than the window still loses the events the budget refuses",
                s.whose()
            ),
        ));
    }
    out
}

/// The rates that apply to class `c` (its own, or an endpoint's).
fn applying<'a>(c: &'a ClassFacts, rates: &'a [Rate], classes: &'a [String]) -> impl Iterator<Item = &'a Rate> {
    rates.iter().filter(move |r| r.key == c.name || !classes.contains(&r.key))
}

/// Finding 1, as draft 3 settled it: the gate reads a view whatever its
/// age, so `cache_ms` (kept in the section and the hash) changes no
/// decision. Written out, it reads as a fix for draft 2's fail-open
/// (health-simulation finding 1) that no longer does anything.
fn cache(s: &Section<'_>, written: bool, out: &mut Vec<Finding>) {
    if !written {
        return;
    }
    out.push(
        Finding::new(
            Severity::Info,
            "health_cache_ms_has_no_effect",
            s.field("cache_ms"),
            format!(
                "{}cache_ms {}: since draft 3 the gate reads a view whatever its age (docs/health.md section 4), so a short cache no longer makes the gate fail open (health-simulation finding 1) and a long one no longer prevents it; the field only enters policy_hash",
                s.whose(),
                ms(s.h.cache_ms)
            ),
        )
        .with("cache_ms", s.h.cache_ms),
    );
}

/// Finding 5: held events leave at `max(floor, multiple x normal)` while new
/// events keep arriving at the normal rate; events held since an outage of
/// `D` began leave by their deadline only if `D (1 + 1/m) <= window`, `m`
/// the release's multiple of the normal rate. The rule asks that an outage
/// of two thirds of the window (finding 5's 10 minutes of 15) drains.
fn release(s: &Section<'_>, rates: &[Rate], classes: &[String], out: &mut Vec<Finding>) {
    let r = s.h.release;
    let window = s.c.policy.window_ms;
    let mut judged: Vec<(f64, Option<&Rate>)> = applying(s.c, rates, classes)
        .map(|rate| (r.floor_per_s.max(r.multiple * rate.per_s) / rate.per_s, Some(rate)))
        .collect();
    if judged.is_empty() {
        judged.push((r.multiple, None));
    }
    for (m, rate) in judged {
        let drains_ms = (window as f64 * m / (m + 1.0)) as u64;
        if drains_ms as f64 >= window as f64 * DRAIN_OUTAGE_SHARE {
            continue;
        }
        let at =
            rate.map_or(String::new(), |x| format!(" ({}/s: {m:.2}x with floor_per_s {})", x.per_s, r.floor_per_s));
        let need = DRAIN_OUTAGE_SHARE / (1.0 - DRAIN_OUTAGE_SHARE);
        let mut f = Finding::new(
            Severity::Warning,
            "health_release_cannot_drain",
            s.field("release.multiple"),
            format!(
                "{}release.multiple {}{at}: the backlog of an outage drains at {m:.2}x normal while new events keep arriving, so events held from its start meet their deadline only for outages under {} of the {} window (finding 5: 1x delivered 60.4% of a 10-minute outage's arrivals in 15 minutes, 3x 100%); use {need:.1} or more",
                s.whose(),
                r.multiple,
                ms(drains_ms),
                ms(window)
            ),
        )
        .with("multiple", r.multiple)
        .with("effective_multiple", m)
        .with("longest_drained_outage_ms", drains_ms)
        .with("window_ms", window);
        if let Some(x) = rate {
            f = f.with("rate_per_s", x.per_s);
        }
        out.push(f);
    }
}

/// Issue 28 item 5: once arrivals stop, a replica releases a held backlog at
/// the backlog's need, capped at `NEED_CAP_FLOORS x floor_per_s`
/// (docs/engine.md section 5). Events that arrived at `r` through an
/// outage of `D` leave in deadline order at `R` after it: the k-th (arrived
/// at `k / r`, deadline `k / r + W`) leaves at `D + k / R`, in time while
/// `D + k / R <= k / r + W` for every `k <= r D`. Below `r` the last is the
/// worst, which gives `R >= r D / W`: two thirds of `r` at `D = 2W/3`. The
/// rate is judged as one replica's (the fleet's `--rate` on one replica: a
/// fleet of `n` needs `1/n` of it each, so the rule errs towards warning).
fn floor(s: &Section<'_>, rates: &[Rate], classes: &[String], out: &mut Vec<Finding>) {
    let r = s.h.release;
    let window = s.c.policy.window_ms;
    let cap = retry_policy_core::engine::NEED_CAP_FLOORS * r.floor_per_s;
    for rate in applying(s.c, rates, classes) {
        let need = rate.per_s * DRAIN_OUTAGE_SHARE;
        if need <= cap {
            continue;
        }
        let outage_ms = (window as f64 * DRAIN_OUTAGE_SHARE) as u64;
        out.push(
            Finding::new(
                Severity::Warning,
                "health_floor_cannot_drain_backlog",
                s.field("release.floor_per_s"),
                format!(
                    "{}release.floor_per_s {}: once arrivals stop, a replica releases a held backlog at most at {} x floor_per_s = {cap}/s (docs/engine.md section 5), but {}/s held through an outage of {} need {need:.1}/s to leave inside the {} window; use floor_per_s {:.2} or more",
                    s.whose(),
                    r.floor_per_s,
                    retry_policy_core::engine::NEED_CAP_FLOORS,
                    rate.per_s,
                    ms(outage_ms),
                    ms(window),
                    need / retry_policy_core::engine::NEED_CAP_FLOORS
                ),
            )
            .with("floor_per_s", r.floor_per_s)
            .with("rate_per_s", rate.per_s)
            .with("drain_cap_per_s", cap)
            .with("need_per_s", need),
        );
    }
}
