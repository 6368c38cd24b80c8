//! The gate before each send (docs/health.md section 4): pure, run by the
//! host before every send (first attempt, retry, release of a held event).
//!
//! ```text
//! 1  elapsed >= window_ms                        stop retry_window_elapsed (dead letter + held_ms)
//! 2  no health section                           send
//!    no view, or now_ms - as_of_ms > cache_ms    skip 3-5 (health fails open)
//! 3  now_ms < paused_until_ms                    hold until min(paused_until_ms, deadline_ms)
//! 4  open, now_ms < opened_at_ms + cooldown_ms   hold until min(opened_at_ms + cooldown_ms, deadline_ms)
//! 5  open, cooldown over                         probe (ask the store: [`after_probe`])
//! 6  held, and the pacer has no token            hold until min(the pacer's next token, deadline_ms)
//! 7  otherwise                                   send (a held event spent a token)
//! ```
//!
//! `deadline_ms = first_attempted_at_ms + window_ms`; every hold ends by
//! then, so the event's last wake meets gate 1. "Open" means
//! `opened_at_ms != 0` and a circuit in the section.

use alloc::string::String;

use crate::decide::{DeadLetter, Policy, StopReason};
use crate::error::PolicyError;

use super::pacer::{pace, Pace, Pacer};
use super::section::Health;
use super::state::HealthView;

/// What the gate knows about the event about to be sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateEvent {
    pub event_id: String,
    pub endpoint_id: String,
    /// Attempts already made (0 before the first).
    pub attempts: u32,
    pub first_attempted_at_ms: u64,
    /// The event is leaving a hold (or is a replay): it needs a pacer token.
    pub held: bool,
    /// The total time it spent held so far (summed by the host).
    pub held_ms: u64,
}

/// Why an event waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HoldReason {
    /// Gate 3: a `Retry-After` pause.
    Paused,
    /// Gate 4: the circuit's cooldown.
    CircuitOpen,
    /// A probe was asked for and refused: until the next probe window.
    ProbeRefused,
    /// Gate 6: no release token.
    ReleasePacing,
    /// `settle`: the budget refused the retry (`hold_budget_refusals`).
    BudgetRefused,
}

impl HoldReason {
    /// Every reason, in the order docs/metrics.md lists them.
    pub const ALL: [HoldReason; 5] = [
        HoldReason::Paused,
        HoldReason::CircuitOpen,
        HoldReason::ProbeRefused,
        HoldReason::ReleasePacing,
        HoldReason::BudgetRefused,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            HoldReason::Paused => "paused",
            HoldReason::CircuitOpen => "circuit_open",
            HoldReason::ProbeRefused => "probe_refused",
            HoldReason::ReleasePacing => "release_pacing",
            HoldReason::BudgetRefused => "budget_refused",
        }
    }
}

/// What the gate says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateDecision {
    /// Send now; `probe`: as a granted probe (report it with `probe: true`).
    Send { probe: bool },
    /// Ask the store for a probe, then [`after_probe`].
    Probe,
    /// Wait, spending no attempt, and run the gate again at `until_ms`.
    Hold { until_ms: u64, reason: HoldReason },
    /// The window is over: dead-letter with `held_ms`.
    Stop { dead_letter: DeadLetter, held_ms: u64 },
}

fn deadline_ms(policy: &Policy, event: &GateEvent) -> u64 {
    event.first_attempted_at_ms.saturating_add(policy.window_ms)
}

fn hold(until_ms: u64, deadline_ms: u64, reason: HoldReason) -> GateDecision {
    GateDecision::Hold { until_ms: until_ms.min(deadline_ms), reason }
}

/// Gates 3-5 on a usable view: `Some` when one of them decides.
fn view_gates(health: &Health, view: &HealthView, now_ms: u64, deadline_ms: u64) -> Option<GateDecision> {
    if now_ms < view.paused_until_ms {
        return Some(hold(view.paused_until_ms, deadline_ms, HoldReason::Paused));
    }
    if health.circuit.is_some() && view.opened_at_ms != 0 {
        let cooldown_end = view.opened_at_ms.saturating_add(view.cooldown_ms);
        if now_ms < cooldown_end {
            return Some(hold(cooldown_end, deadline_ms, HoldReason::CircuitOpen));
        }
        return Some(GateDecision::Probe);
    }
    None
}

fn validate(policy: &Policy, health: Option<&Health>, pacer: &Pacer) -> Result<(), PolicyError> {
    policy.validate()?;
    if let Some(h) = health {
        h.validate().map_err(|e| e.within("health"))?;
    }
    pacer.validate()
}

/// The gate (module docs). Returns the decision and the pacer to keep
/// (changed only when gate 6 ran).
pub fn gate(
    policy: &Policy,
    health: Option<&Health>,
    event: &GateEvent,
    view: Option<&HealthView>,
    pacer: &Pacer,
    now_ms: u64,
) -> Result<(GateDecision, Pacer), PolicyError> {
    validate(policy, health, pacer)?;
    let elapsed_ms = now_ms.saturating_sub(event.first_attempted_at_ms);
    if elapsed_ms >= policy.window_ms {
        let dead_letter = DeadLetter {
            event_id: event.event_id.clone(),
            endpoint_id: event.endpoint_id.clone(),
            attempts: event.attempts,
            elapsed_ms,
            stop_reason: StopReason::RetryWindowElapsed,
        };
        return Ok((GateDecision::Stop { dead_letter, held_ms: event.held_ms }, *pacer));
    }
    let Some(health) = health else { return Ok((GateDecision::Send { probe: false }, *pacer)) };
    let deadline = deadline_ms(policy, event);
    if let Some(d) = view.and_then(|v| view_gates(health, v, now_ms, deadline)) {
        return Ok((d, *pacer));
    }
    if event.held {
        let (verdict, next) = pace(pacer, &health.release, now_ms);
        return Ok(match verdict {
            Pace::Send => (GateDecision::Send { probe: false }, next),
            Pace::Wait { until_ms } => (hold(until_ms, deadline, HoldReason::ReleasePacing), next),
        });
    }
    Ok((GateDecision::Send { probe: false }, *pacer))
}

/// After gate 5's `probe` call: granted sends the event as a probe (no
/// pacer token: it is one request). Refused runs the gate again on the
/// reply's (fresh) view; if that still asks for a probe, the event holds
/// until the next probe window, `(floor(now_ms / probe_interval_ms) + 1) *
/// probe_interval_ms` (by the deadline).
pub fn after_probe(
    policy: &Policy,
    health: &Health,
    event: &GateEvent,
    granted: bool,
    view: &HealthView,
    pacer: &Pacer,
    now_ms: u64,
) -> Result<(GateDecision, Pacer), PolicyError> {
    let (decision, next) = gate(policy, Some(health), event, Some(view), pacer, now_ms)?;
    Ok(match decision {
        GateDecision::Probe if granted => (GateDecision::Send { probe: true }, next),
        GateDecision::Probe => {
            let interval = health.circuit.map_or(1, |c| c.probe_interval_ms);
            let next_window_ms = (now_ms / interval).saturating_add(1).saturating_mul(interval);
            (hold(next_window_ms, deadline_ms(policy, event), HoldReason::ProbeRefused), next)
        }
        other => (other, next),
    })
}
