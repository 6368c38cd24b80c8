//! Conversions between the WIT types and `policy-core`'s. Pure field
//! mapping: no policy logic lives here.

pub mod from_wit {
    use alloc::vec::Vec;

    use crate::wit;
    use retry_policy_core as c;

    pub fn backoff(b: wit::Backoff) -> c::Backoff {
        c::Backoff {
            base_ms: b.base_ms,
            factor: b.factor,
            cap_ms: b.cap_ms,
            jitter: match b.jitter {
                wit::Jitter::None => c::Jitter::None,
                wit::Jitter::Full => c::Jitter::Full,
                wit::Jitter::Equal => c::Jitter::Equal,
            },
        }
    }

    pub fn budget(b: wit::Budget) -> c::Budget {
        c::Budget { ratio: b.ratio, window_ms: b.window_ms, min_sample: b.min_sample, sliding: b.sliding }
    }

    pub fn policy(p: wit::Policy) -> c::Policy {
        c::Policy {
            backoff: backoff(p.backoff),
            window_ms: p.window_ms,
            hard_cap: p.hard_cap,
            budget: budget(p.budget),
        }
    }

    pub fn counts(k: wit::BudgetCounts) -> c::BudgetCounts {
        c::BudgetCounts {
            current: c::BucketCounts { total: k.current.total, retries: k.current.retries },
            previous: c::BucketCounts { total: k.previous.total, retries: k.previous.retries },
        }
    }

    pub fn state(s: wit::DeliveryState) -> c::DeliveryState {
        c::DeliveryState {
            event_id: s.event_id,
            endpoint_id: s.endpoint_id,
            attempt: s.attempt,
            max_attempts: s.max_attempts,
            first_attempted_at_ms: s.first_attempted_at_ms,
            credentials_refreshed: s.credentials_refreshed,
        }
    }

    pub fn outcome(o: wit::AttemptOutcome) -> c::AttemptOutcome {
        match o {
            wit::AttemptOutcome::Response(r) => {
                c::AttemptOutcome::Response { status: r.status, retry_after_ms: r.retry_after_ms }
            }
            wit::AttemptOutcome::TransportError(kind) => c::AttemptOutcome::TransportError { kind },
        }
    }

    pub fn bucket(b: wit::BucketCounts) -> c::BucketCounts {
        c::BucketCounts { total: b.total, retries: b.retries }
    }

    pub fn op(o: wit::StoreOp) -> c::StoreOp {
        match o {
            wit::StoreOp::Record => c::StoreOp::Record,
            wit::StoreOp::Reserve => c::StoreOp::Reserve,
            wit::StoreOp::RecordReserve => c::StoreOp::RecordReserve,
        }
    }

    pub fn request(r: wit::StoreRequest) -> c::StoreRequest {
        c::StoreRequest { op: op(r.op), endpoint_id: r.endpoint_id, window_ms: r.window_ms, bucket: r.bucket }
    }

    pub fn reservation(r: wit::Reservation) -> c::Reservation {
        c::Reservation { reserved: r.reserved, counts: counts(r.counts) }
    }

    pub fn reply(r: wit::StoreReply) -> c::StoreReply {
        match r {
            wit::StoreReply::Unavailable => c::StoreReply::Unavailable,
            wit::StoreReply::Answered(a) => c::StoreReply::Answered(reservation(a)),
        }
    }

    pub fn held(h: wit::HeldBuckets) -> c::HeldBuckets {
        c::HeldBuckets { bucket: h.bucket, current: bucket(h.current), previous: bucket(h.previous) }
    }

    /// A document handed back by the host: re-validated, since the host may
    /// have built or altered it.
    pub fn document(d: wit::PolicyDocument) -> Result<c::document::PolicyDocument, c::PolicyError> {
        let mut classes = Vec::with_capacity(d.classes.len());
        for class in d.classes {
            let p = policy(class.policy);
            p.validate().map_err(|e| e.within(&(alloc::string::String::from("classes.") + &class.name)))?;
            classes.push((class.name, p));
        }
        Ok(c::document::PolicyDocument { version: d.version, classes })
    }
}

pub mod to_wit {

    use crate::wit;
    use retry_policy_core as c;

    pub fn error(e: c::PolicyError) -> wit::PolicyError {
        let code = match e.code {
            c::ErrorCode::InvalidBackoff => wit::ErrorCode::InvalidBackoff,
            c::ErrorCode::InvalidHardCap => wit::ErrorCode::InvalidHardCap,
            c::ErrorCode::InvalidWindow => wit::ErrorCode::InvalidWindow,
            c::ErrorCode::InvalidBudget => wit::ErrorCode::InvalidBudget,
            c::ErrorCode::InvalidState => wit::ErrorCode::InvalidState,
            c::ErrorCode::InvalidStatus => wit::ErrorCode::InvalidStatus,
            c::ErrorCode::InvalidDocument => wit::ErrorCode::InvalidDocument,
            c::ErrorCode::UnknownEventClass => wit::ErrorCode::UnknownEventClass,
            c::ErrorCode::InvalidRetryIndex => wit::ErrorCode::InvalidRetryIndex,
            c::ErrorCode::DocumentTooLarge => wit::ErrorCode::DocumentTooLarge,
            _ => wit::ErrorCode::InvalidInput,
        };
        wit::PolicyError { code, field: e.field, message: e.message }
    }

    pub fn class(o: c::OutcomeClass) -> wit::OutcomeClass {
        match o {
            c::OutcomeClass::Success => wit::OutcomeClass::Success,
            c::OutcomeClass::Retryable => wit::OutcomeClass::Retryable,
            c::OutcomeClass::Terminal => wit::OutcomeClass::Terminal,
        }
    }

    pub fn plan(p: c::Plan) -> wit::Schedule {
        wit::Schedule {
            max_attempts: p.max_attempts,
            expected_span_ms: p.expected_span_ms,
            offsets_ms: p.offsets_ms,
            worst_case_span_ms: p.worst_case_span_ms,
            limited_by: match p.limited_by {
                c::LimitedBy::Window => wit::LimitedBy::Window,
                c::LimitedBy::HardCap => wit::LimitedBy::HardCap,
            },
        }
    }

    pub fn reason(r: c::StopReason) -> wit::StopReason {
        match r {
            c::StopReason::Delivered => wit::StopReason::Delivered,
            c::StopReason::TerminalResponse => wit::StopReason::TerminalResponse,
            c::StopReason::MaxAttemptsExhausted => wit::StopReason::MaxAttemptsExhausted,
            c::StopReason::RetryWindowElapsed => wit::StopReason::RetryWindowElapsed,
            c::StopReason::RetryBudgetExhausted => wit::StopReason::RetryBudgetExhausted,
            c::StopReason::BudgetUnavailable => wit::StopReason::BudgetUnavailable,
        }
    }

    pub fn stop(s: c::Stop) -> wit::Stop {
        wit::Stop {
            reason: reason(s.reason),
            disable_endpoint: s.disable_endpoint,
            dead_letter: s.dead_letter.map(|d| wit::DeadLetter {
                event_id: d.event_id,
                endpoint_id: d.endpoint_id,
                attempts: d.attempts,
                elapsed_ms: d.elapsed_ms,
                stop_reason: reason(d.stop_reason),
            }),
        }
    }

    pub fn decision(d: c::Decision) -> wit::Decision {
        match d {
            c::Decision::Retry(r) => {
                wit::Decision::Retry(wit::Retry { delay_ms: r.delay_ms, refresh_credentials: r.refresh_credentials })
            }
            c::Decision::Stop(s) => wit::Decision::Stop(stop(s)),
        }
    }

    pub fn request(r: c::StoreRequest) -> wit::StoreRequest {
        wit::StoreRequest {
            op: match r.op {
                c::StoreOp::Record => wit::StoreOp::Record,
                c::StoreOp::Reserve => wit::StoreOp::Reserve,
                c::StoreOp::RecordReserve => wit::StoreOp::RecordReserve,
            },
            endpoint_id: r.endpoint_id,
            window_ms: r.window_ms,
            bucket: r.bucket,
        }
    }

    pub fn step(s: c::Step) -> wit::Step {
        wit::Step { decision: s.decision.map(decision), store: s.store.map(request) }
    }

    pub fn settlement(s: c::Settlement) -> wit::Settlement {
        wit::Settlement { decision: decision(s.decision), budget_disagreement: s.budget_disagreement }
    }

    pub fn bucket(b: c::BucketCounts) -> wit::BucketCounts {
        wit::BucketCounts { total: b.total, retries: b.retries }
    }

    pub fn counts(k: c::BudgetCounts) -> wit::BudgetCounts {
        wit::BudgetCounts { current: bucket(k.current), previous: bucket(k.previous) }
    }

    pub fn applied(r: c::Reservation, h: c::HeldBuckets) -> wit::Applied {
        wit::Applied {
            reply: wit::Reservation { reserved: r.reserved, counts: counts(r.counts) },
            held: wit::HeldBuckets { bucket: h.bucket, current: bucket(h.current), previous: bucket(h.previous) },
        }
    }

    pub fn policy(p: c::Policy) -> wit::Policy {
        wit::Policy {
            backoff: wit::Backoff {
                base_ms: p.backoff.base_ms,
                factor: p.backoff.factor,
                cap_ms: p.backoff.cap_ms,
                jitter: match p.backoff.jitter {
                    c::Jitter::None => wit::Jitter::None,
                    c::Jitter::Full => wit::Jitter::Full,
                    c::Jitter::Equal => wit::Jitter::Equal,
                },
            },
            window_ms: p.window_ms,
            hard_cap: p.hard_cap,
            budget: wit::Budget {
                ratio: p.budget.ratio,
                window_ms: p.budget.window_ms,
                min_sample: p.budget.min_sample,
                sliding: p.budget.sliding,
            },
        }
    }

    pub fn document(d: c::document::PolicyDocument) -> wit::PolicyDocument {
        wit::PolicyDocument {
            version: d.version,
            classes: d.classes.into_iter().map(|(name, p)| wit::EventClass { name, policy: policy(p) }).collect(),
        }
    }

    pub fn admission(a: c::document::Admission) -> wit::Admission {
        wit::Admission {
            class: a.class,
            policy_version: a.policy_version,
            policy_hash: a.policy_hash,
            first_attempted_at_ms: a.first_attempted_at_ms,
            deadline_ms: a.deadline_ms,
            schedule: plan(a.plan),
        }
    }
}
