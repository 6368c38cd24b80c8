//! Field mapping of ABI 0.3's types (the compiled policy and format 3,
//! endpoint health) between `policy-core` and the generated WIT types.
//! No policy logic lives here.

pub mod to_wit {
    use crate::bindings::wit;
    use crate::convert::to_wit as v2;
    use retry_policy_core::compiled::{CallOp, HealthCall, StoreCall};
    use retry_policy_core::health as h;

    pub fn circuit(c: &h::Circuit) -> wit::Circuit {
        wit::Circuit {
            failure_ratio: c.failure_ratio,
            min_sample: c.min_sample,
            cooldown_ms: c.cooldown_ms,
            cooldown_max_ms: c.cooldown_max_ms,
            probes: c.probes,
            probe_interval_ms: c.probe_interval_ms,
        }
    }

    pub fn release(r: &h::Release) -> wit::Release {
        wit::Release { multiple: r.multiple, floor_per_s: r.floor_per_s }
    }

    pub fn health(s: &h::Health) -> wit::Health {
        wit::Health {
            hold_budget_refusals: s.hold_budget_refusals,
            pause_max_ms: s.pause_max_ms,
            circuit: s.circuit.as_ref().map(circuit),
            release: release(&s.release),
            cache_ms: s.cache_ms,
        }
    }

    pub fn view(v: &h::HealthView) -> wit::HealthView {
        wit::HealthView {
            paused_until_ms: v.paused_until_ms,
            opened_at_ms: v.opened_at_ms,
            cooldown_ms: v.cooldown_ms,
            closed_at_ms: v.closed_at_ms,
            as_of_ms: v.as_of_ms,
        }
    }

    pub fn pacer(p: &h::Pacer) -> wit::Pacer {
        wit::Pacer { tokens: p.tokens, updated_ms: p.updated_ms, normal_per_s: p.normal_per_s }
    }

    pub fn gate_event(e: &h::GateEvent) -> wit::GateEvent {
        wit::GateEvent {
            event_id: e.event_id.clone(),
            endpoint_id: e.endpoint_id.clone(),
            attempts: e.attempts,
            first_attempted_at_ms: e.first_attempted_at_ms,
            held: e.held,
            held_ms: e.held_ms,
        }
    }

    pub fn wake(w: &h::Wake) -> wit::Wake {
        wit::Wake {
            event_id: w.event_id.clone(),
            endpoint_id: w.endpoint_id.clone(),
            attempts: w.attempts,
            first_attempted_at_ms: w.first_attempted_at_ms,
            refusals: w.refusals,
        }
    }

    pub fn call_op(op: CallOp) -> wit::CallOp {
        match op {
            CallOp::Record => wit::CallOp::Record,
            CallOp::Reserve => wit::CallOp::Reserve,
            CallOp::RecordReserve => wit::CallOp::RecordReserve,
            CallOp::Report => wit::CallOp::Report,
            CallOp::Probe => wit::CallOp::Probe,
        }
    }

    pub fn health_outcome(o: h::HealthOutcome) -> wit::HealthOutcome {
        match o {
            h::HealthOutcome::Success => wit::HealthOutcome::Success,
            h::HealthOutcome::Failure => wit::HealthOutcome::Failure,
            h::HealthOutcome::None => wit::HealthOutcome::None,
        }
    }

    fn health_call(c: &HealthCall) -> wit::HealthCall {
        wit::HealthCall {
            outcome: health_outcome(c.outcome),
            pause_until_ms: c.pause_until_ms,
            probe: c.probe,
            circuit: c.circuit.as_ref().map(circuit),
        }
    }

    pub fn store_call(c: &StoreCall) -> wit::StoreCall {
        wit::StoreCall {
            op: call_op(c.op),
            key: c.key.clone(),
            endpoint_id: c.endpoint_id.clone(),
            bucket: c.bucket,
            budget: v2::budget(&c.budget),
            health: c.health.as_ref().map(health_call),
        }
    }

    pub fn held_health(x: &h::HeldHealth) -> wit::HeldHealth {
        let s = &x.health;
        wit::HeldHealth {
            buckets: v2::held(&x.buckets),
            health: wit::HealthState {
                failures: wit::FailureBuckets {
                    bucket: s.failures.bucket,
                    current: s.failures.current,
                    previous: s.failures.previous,
                },
                paused_until_ms: s.paused_until_ms,
                opened_at_ms: s.opened_at_ms,
                cooldown_ms: s.cooldown_ms,
                probe_window: s.probe_window,
                probes_granted: s.probes_granted,
                closed_at_ms: s.closed_at_ms,
            },
        }
    }
}

pub mod from_wit {
    use crate::bindings::wit;
    use crate::convert::from_wit as v2;
    use retry_policy_core as c;
    use retry_policy_core::compiled::{CallOp, CallReply, HealthCall, StepResult, StoreCall};
    use retry_policy_core::health as h;

    pub fn circuit(x: wit::Circuit) -> h::Circuit {
        h::Circuit {
            failure_ratio: x.failure_ratio,
            min_sample: x.min_sample,
            cooldown_ms: x.cooldown_ms,
            cooldown_max_ms: x.cooldown_max_ms,
            probes: x.probes,
            probe_interval_ms: x.probe_interval_ms,
        }
    }

    pub fn health(s: wit::Health) -> h::Health {
        h::Health {
            hold_budget_refusals: s.hold_budget_refusals,
            pause_max_ms: s.pause_max_ms,
            circuit: s.circuit.map(circuit),
            release: h::Release { multiple: s.release.multiple, floor_per_s: s.release.floor_per_s },
            cache_ms: s.cache_ms,
        }
    }

    pub fn view(v: wit::HealthView) -> h::HealthView {
        h::HealthView {
            paused_until_ms: v.paused_until_ms,
            opened_at_ms: v.opened_at_ms,
            cooldown_ms: v.cooldown_ms,
            closed_at_ms: v.closed_at_ms,
            as_of_ms: v.as_of_ms,
        }
    }

    pub fn pacer(p: wit::Pacer) -> h::Pacer {
        h::Pacer { tokens: p.tokens, updated_ms: p.updated_ms, normal_per_s: p.normal_per_s }
    }

    fn hold_reason(r: wit::HoldReason) -> h::HoldReason {
        match r {
            wit::HoldReason::Paused => h::HoldReason::Paused,
            wit::HoldReason::CircuitOpen => h::HoldReason::CircuitOpen,
            wit::HoldReason::ProbeRefused => h::HoldReason::ProbeRefused,
            wit::HoldReason::ReleasePacing => h::HoldReason::ReleasePacing,
            wit::HoldReason::BudgetRefused => h::HoldReason::BudgetRefused,
        }
    }

    pub fn gate_answer(a: wit::GateAnswer) -> (h::GateDecision, h::Pacer) {
        let decision = match a.verdict {
            wit::GateVerdict::Send => h::GateDecision::Send { probe: false },
            wit::GateVerdict::SendProbe => h::GateDecision::Send { probe: true },
            wit::GateVerdict::Probe => h::GateDecision::Probe,
            wit::GateVerdict::Hold(x) => h::GateDecision::Hold { until_ms: x.until_ms, reason: hold_reason(x.reason) },
            wit::GateVerdict::Stop(s) => {
                h::GateDecision::Stop { dead_letter: v2::dead_letter(s.dead_letter), held_ms: s.held_ms }
            }
        };
        (decision, pacer(a.pacer))
    }

    pub fn finished(f: wit::Finished) -> h::HealthSettlement {
        let decision = match f.verdict {
            wit::Verdict::Retry(r) => h::HealthDecision::Decided(v2::decision(wit::Decision::Retry(r))),
            wit::Verdict::Stop(s) => h::HealthDecision::Decided(c::Decision::Stop(v2::stop(s))),
            wit::Verdict::Hold(x) => {
                h::HealthDecision::Hold { until_ms: x.until_ms, refresh_credentials: x.refresh_credentials }
            }
        };
        h::HealthSettlement { decision, budget_disagreement: f.budget_disagreement }
    }

    pub fn wake_verdict(w: wit::WakeVerdict) -> h::WakeDecision {
        match w {
            wit::WakeVerdict::Send => h::WakeDecision::Send,
            wit::WakeVerdict::Hold(x) => h::WakeDecision::Hold { until_ms: x.until_ms, refusals: x.refusals },
            wit::WakeVerdict::Stop(d) => h::WakeDecision::Stop { dead_letter: v2::dead_letter(d) },
        }
    }

    pub fn paced(p: wit::Paced) -> (h::Pace, h::Pacer) {
        let verdict = match p.verdict {
            wit::PaceVerdict::Send => h::Pace::Send,
            wit::PaceVerdict::Wait(until_ms) => h::Pace::Wait { until_ms },
        };
        (verdict, pacer(p.pacer))
    }

    pub fn health_outcome(o: wit::HealthOutcome) -> h::HealthOutcome {
        match o {
            wit::HealthOutcome::Success => h::HealthOutcome::Success,
            wit::HealthOutcome::Failure => h::HealthOutcome::Failure,
            wit::HealthOutcome::None => h::HealthOutcome::None,
        }
    }

    pub fn call_op(op: wit::CallOp) -> CallOp {
        match op {
            wit::CallOp::Record => CallOp::Record,
            wit::CallOp::Reserve => CallOp::Reserve,
            wit::CallOp::RecordReserve => CallOp::RecordReserve,
            wit::CallOp::Report => CallOp::Report,
            wit::CallOp::Probe => CallOp::Probe,
        }
    }

    pub fn store_call(x: wit::StoreCall) -> StoreCall {
        StoreCall {
            op: call_op(x.op),
            key: x.key,
            endpoint_id: x.endpoint_id,
            bucket: x.bucket,
            budget: v2::budget(x.budget),
            health: x.health.map(|hc| HealthCall {
                outcome: health_outcome(hc.outcome),
                pause_until_ms: hc.pause_until_ms,
                probe: hc.probe,
                circuit: hc.circuit.map(circuit),
            }),
        }
    }

    pub fn advance(r: wit::AdvanceResult) -> StepResult {
        match r {
            wit::AdvanceResult::Decided(d) => {
                StepResult::Decided { decision: v2::decision(d.decision), call: d.call.map(store_call) }
            }
            wit::AdvanceResult::NeedsStore(call) => StepResult::NeedsStore(store_call(call)),
        }
    }

    fn bucket(b: wit::BucketCounts) -> c::BucketCounts {
        c::BucketCounts { total: b.total, retries: b.retries }
    }

    pub fn call_applied(a: wit::CallApplied) -> (CallReply, h::HeldHealth) {
        let reply = CallReply {
            reservation: a.reply.reservation.map(v2::reservation),
            granted: a.reply.granted,
            view: a.reply.view.map(view),
        };
        let (b, s) = (a.held.buckets, a.held.health);
        let held = h::HeldHealth {
            buckets: c::HeldBuckets { bucket: b.bucket, current: bucket(b.current), previous: bucket(b.previous) },
            health: h::HealthState {
                failures: h::FailureBuckets {
                    bucket: s.failures.bucket,
                    current: s.failures.current,
                    previous: s.failures.previous,
                },
                paused_until_ms: s.paused_until_ms,
                opened_at_ms: s.opened_at_ms,
                cooldown_ms: s.cooldown_ms,
                probe_window: s.probe_window,
                probes_granted: s.probes_granted,
                closed_at_ms: s.closed_at_ms,
            },
        };
        (reply, held)
    }
}
