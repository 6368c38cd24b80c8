//! Conversions of the 0.3 (format 3, compiled policy) WIT types. Pure field
//! mapping: no policy logic lives here.

pub mod from_wit {
    use crate::convert::from_wit as f2;
    use crate::wit;
    use retry_policy_core::compiled as k;
    use retry_policy_core::health as h;

    pub fn circuit(c: wit::Circuit) -> h::Circuit {
        h::Circuit {
            failure_ratio: c.failure_ratio,
            min_sample: c.min_sample,
            cooldown_ms: c.cooldown_ms,
            cooldown_max_ms: c.cooldown_max_ms,
            probes: c.probes,
            probe_interval_ms: c.probe_interval_ms,
        }
    }

    pub fn release(r: wit::Release) -> h::Release {
        h::Release { multiple: r.multiple, floor_per_s: r.floor_per_s }
    }

    pub fn health(s: wit::Health) -> h::Health {
        h::Health {
            hold_budget_refusals: s.hold_budget_refusals,
            pause_max_ms: s.pause_max_ms,
            circuit: s.circuit.map(circuit),
            release: release(s.release),
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

    pub fn event(e: wit::GateEvent) -> h::GateEvent {
        h::GateEvent {
            event_id: e.event_id,
            endpoint_id: e.endpoint_id,
            attempts: e.attempts,
            first_attempted_at_ms: e.first_attempted_at_ms,
            held: e.held,
            held_ms: e.held_ms,
        }
    }

    pub fn wake(w: wit::Wake) -> h::Wake {
        h::Wake {
            event_id: w.event_id,
            endpoint_id: w.endpoint_id,
            attempts: w.attempts,
            first_attempted_at_ms: w.first_attempted_at_ms,
            refusals: w.refusals,
        }
    }

    pub fn op(o: wit::CallOp) -> k::CallOp {
        match o {
            wit::CallOp::Record => k::CallOp::Record,
            wit::CallOp::Reserve => k::CallOp::Reserve,
            wit::CallOp::RecordReserve => k::CallOp::RecordReserve,
            wit::CallOp::Report => k::CallOp::Report,
            wit::CallOp::Probe => k::CallOp::Probe,
        }
    }

    pub fn outcome(o: wit::HealthOutcome) -> h::HealthOutcome {
        match o {
            wit::HealthOutcome::Success => h::HealthOutcome::Success,
            wit::HealthOutcome::Failure => h::HealthOutcome::Failure,
            wit::HealthOutcome::None => h::HealthOutcome::None,
        }
    }

    pub fn call(c: wit::StoreCall) -> k::StoreCall {
        k::StoreCall {
            op: op(c.op),
            key: c.key,
            endpoint_id: c.endpoint_id,
            bucket: c.bucket,
            budget: f2::budget(c.budget),
            health: c.health.map(|x| k::HealthCall {
                outcome: outcome(x.outcome),
                pause_until_ms: x.pause_until_ms,
                probe: x.probe,
                circuit: x.circuit.map(circuit),
            }),
        }
    }

    pub fn held(x: wit::HeldHealth) -> h::HeldHealth {
        let s = x.health;
        h::HeldHealth {
            buckets: f2::held(x.buckets),
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
        }
    }
}

pub mod to_wit {
    use alloc::vec::Vec;

    use crate::convert::to_wit as t2;
    use crate::wit;
    use retry_policy_core as c;
    use retry_policy_core::compiled as k;
    use retry_policy_core::health as h;

    pub fn circuit(x: h::Circuit) -> wit::Circuit {
        wit::Circuit {
            failure_ratio: x.failure_ratio,
            min_sample: x.min_sample,
            cooldown_ms: x.cooldown_ms,
            cooldown_max_ms: x.cooldown_max_ms,
            probes: x.probes,
            probe_interval_ms: x.probe_interval_ms,
        }
    }

    pub fn health(s: h::Health) -> wit::Health {
        wit::Health {
            hold_budget_refusals: s.hold_budget_refusals,
            pause_max_ms: s.pause_max_ms,
            circuit: s.circuit.map(circuit),
            release: wit::Release { multiple: s.release.multiple, floor_per_s: s.release.floor_per_s },
            cache_ms: s.cache_ms,
        }
    }

    pub fn view(v: h::HealthView) -> wit::HealthView {
        wit::HealthView {
            paused_until_ms: v.paused_until_ms,
            opened_at_ms: v.opened_at_ms,
            cooldown_ms: v.cooldown_ms,
            closed_at_ms: v.closed_at_ms,
            as_of_ms: v.as_of_ms,
        }
    }

    pub fn pacer(p: h::Pacer) -> wit::Pacer {
        wit::Pacer { tokens: p.tokens, updated_ms: p.updated_ms, normal_per_s: p.normal_per_s }
    }

    pub fn dead_letter(d: c::DeadLetter) -> wit::DeadLetter {
        wit::DeadLetter {
            event_id: d.event_id,
            endpoint_id: d.endpoint_id,
            attempts: d.attempts,
            elapsed_ms: d.elapsed_ms,
            stop_reason: t2::reason(d.stop_reason),
        }
    }

    fn reason(r: h::HoldReason) -> wit::HoldReason {
        match r {
            h::HoldReason::Paused => wit::HoldReason::Paused,
            h::HoldReason::CircuitOpen => wit::HoldReason::CircuitOpen,
            h::HoldReason::ProbeRefused => wit::HoldReason::ProbeRefused,
            h::HoldReason::ReleasePacing => wit::HoldReason::ReleasePacing,
            h::HoldReason::BudgetRefused => wit::HoldReason::BudgetRefused,
        }
    }

    pub fn gate((d, p): (h::GateDecision, h::Pacer)) -> wit::GateAnswer {
        let verdict = match d {
            h::GateDecision::Send { probe: false } => wit::GateVerdict::Send,
            h::GateDecision::Send { probe: true } => wit::GateVerdict::SendProbe,
            h::GateDecision::Probe => wit::GateVerdict::Probe,
            h::GateDecision::Hold { until_ms, reason: r } => {
                wit::GateVerdict::Hold(wit::Hold { until_ms, reason: reason(r) })
            }
            h::GateDecision::Stop { dead_letter: d, held_ms } => {
                wit::GateVerdict::Stop(wit::HeldStop { dead_letter: dead_letter(d), held_ms })
            }
        };
        wit::GateAnswer { verdict, pacer: pacer(p) }
    }

    pub fn finished(s: h::HealthSettlement) -> wit::Finished {
        let verdict = match s.decision {
            h::HealthDecision::Decided(c::Decision::Retry(r)) => {
                wit::Verdict::Retry(wit::Retry { delay_ms: r.delay_ms, refresh_credentials: r.refresh_credentials })
            }
            h::HealthDecision::Decided(c::Decision::Stop(x)) => wit::Verdict::Stop(t2::stop(x)),
            h::HealthDecision::Hold { until_ms, refresh_credentials } => {
                wit::Verdict::Hold(wit::BudgetHold { until_ms, refresh_credentials })
            }
        };
        wit::Finished { verdict, budget_disagreement: s.budget_disagreement }
    }

    pub fn wake(w: h::WakeDecision) -> wit::WakeVerdict {
        match w {
            h::WakeDecision::Send => wit::WakeVerdict::Send,
            h::WakeDecision::Hold { until_ms, refusals } => {
                wit::WakeVerdict::Hold(wit::WakeHold { until_ms, refusals })
            }
            h::WakeDecision::Stop { dead_letter: d } => wit::WakeVerdict::Stop(dead_letter(d)),
        }
    }

    pub fn outcome(o: h::HealthOutcome) -> wit::HealthOutcome {
        match o {
            h::HealthOutcome::Success => wit::HealthOutcome::Success,
            h::HealthOutcome::Failure => wit::HealthOutcome::Failure,
            h::HealthOutcome::None => wit::HealthOutcome::None,
        }
    }

    pub fn call(x: k::StoreCall) -> wit::StoreCall {
        wit::StoreCall {
            op: match x.op {
                k::CallOp::Record => wit::CallOp::Record,
                k::CallOp::Reserve => wit::CallOp::Reserve,
                k::CallOp::RecordReserve => wit::CallOp::RecordReserve,
                k::CallOp::Report => wit::CallOp::Report,
                k::CallOp::Probe => wit::CallOp::Probe,
            },
            key: x.key,
            endpoint_id: x.endpoint_id,
            bucket: x.bucket,
            budget: wit::Budget {
                ratio: x.budget.ratio,
                window_ms: x.budget.window_ms,
                min_sample: x.budget.min_sample,
                sliding: x.budget.sliding,
            },
            health: x.health.map(|y| wit::HealthCall {
                outcome: outcome(y.outcome),
                pause_until_ms: y.pause_until_ms,
                probe: y.probe,
                circuit: y.circuit.map(circuit),
            }),
        }
    }

    pub fn step(s: k::StepResult) -> wit::AdvanceResult {
        match s {
            k::StepResult::Decided { decision, call: x } => {
                wit::AdvanceResult::Decided(wit::Decided { decision: t2::decision(decision), call: x.map(call) })
            }
            k::StepResult::NeedsStore(x) => wit::AdvanceResult::NeedsStore(call(x)),
        }
    }

    pub fn applied((r, x): (k::CallReply, h::HeldHealth)) -> wit::CallApplied {
        let s = x.health;
        wit::CallApplied {
            reply: wit::CallReply {
                reservation: r
                    .reservation
                    .map(|v| wit::Reservation { reserved: v.reserved, counts: t2::counts(v.counts) }),
                granted: r.granted,
                view: r.view.map(view),
            },
            held: wit::HeldHealth {
                buckets: wit::HeldBuckets {
                    bucket: x.buckets.bucket,
                    current: t2::bucket(x.buckets.current),
                    previous: t2::bucket(x.buckets.previous),
                },
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
            },
        }
    }

    pub fn paced((v, p): (h::Pace, h::Pacer)) -> wit::Paced {
        let verdict = match v {
            h::Pace::Send => wit::PaceVerdict::Send,
            h::Pace::Wait { until_ms } => wit::PaceVerdict::Wait(until_ms),
        };
        wit::Paced { verdict, pacer: pacer(p) }
    }

    pub fn document(d: h::HealthDocument) -> wit::HealthDocument {
        let h::HealthDocument { document, health: sections } = d;
        let mut classes = Vec::with_capacity(document.classes.len());
        for ((name, p), (_, s)) in document.classes.into_iter().zip(sections) {
            let hash = k::policy_hash_hex(&p, s.as_ref());
            let hash_words = s.as_ref().map(|x| x.hash_words()).unwrap_or_default();
            classes.push(wit::HealthClass {
                name,
                policy: t2::policy(p),
                health: s.map(health),
                policy_hash: hash,
                hash_words,
            });
        }
        wit::HealthDocument { version: document.version, classes }
    }
}
