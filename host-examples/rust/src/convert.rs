//! Field mapping between `policy-core` types and the generated WIT types.
//! No policy logic lives here.

pub mod to_wit {
    use crate::bindings::wit;
    use retry_policy_core as c;

    pub fn backoff(b: &c::Backoff) -> wit::Backoff {
        wit::Backoff {
            base_ms: b.base_ms,
            factor: b.factor,
            cap_ms: b.cap_ms,
            jitter: match b.jitter {
                c::Jitter::None => wit::Jitter::None,
                c::Jitter::Full => wit::Jitter::Full,
                c::Jitter::Equal => wit::Jitter::Equal,
            },
        }
    }

    pub fn budget(b: &c::Budget) -> wit::Budget {
        wit::Budget { ratio: b.ratio, window_ms: b.window_ms, min_sample: b.min_sample, sliding: b.sliding }
    }

    pub fn policy(p: &c::Policy) -> wit::Policy {
        wit::Policy {
            backoff: backoff(&p.backoff),
            window_ms: p.window_ms,
            hard_cap: p.hard_cap,
            budget: budget(&p.budget),
        }
    }

    pub fn counts(k: c::BudgetCounts) -> wit::BudgetCounts {
        wit::BudgetCounts {
            current: wit::BucketCounts { total: k.current.total, retries: k.current.retries },
            previous: wit::BucketCounts { total: k.previous.total, retries: k.previous.retries },
        }
    }

    pub fn state(s: &c::DeliveryState) -> wit::DeliveryState {
        wit::DeliveryState {
            event_id: s.event_id.clone(),
            endpoint_id: s.endpoint_id.clone(),
            attempt: s.attempt,
            max_attempts: s.max_attempts,
            first_attempted_at_ms: s.first_attempted_at_ms,
            credentials_refreshed: s.credentials_refreshed,
        }
    }

    pub fn outcome(o: &c::AttemptOutcome) -> wit::AttemptOutcome {
        match o {
            c::AttemptOutcome::Response { status, retry_after_ms } => {
                wit::AttemptOutcome::Response(wit::HttpResponse { status: *status, retry_after_ms: *retry_after_ms })
            }
            c::AttemptOutcome::TransportError { kind } => wit::AttemptOutcome::TransportError(kind.clone()),
        }
    }

    pub fn request(r: &c::StoreRequest) -> wit::StoreRequest {
        wit::StoreRequest {
            op: match r.op {
                c::StoreOp::Record => wit::StoreOp::Record,
                c::StoreOp::Reserve => wit::StoreOp::Reserve,
                c::StoreOp::RecordReserve => wit::StoreOp::RecordReserve,
            },
            endpoint_id: r.endpoint_id.clone(),
            window_ms: r.window_ms,
            bucket: r.bucket,
        }
    }

    pub fn reservation(r: &c::Reservation) -> wit::Reservation {
        wit::Reservation { reserved: r.reserved, counts: counts(r.counts) }
    }

    pub fn reply(r: &c::StoreReply) -> wit::StoreReply {
        match r {
            c::StoreReply::Unavailable => wit::StoreReply::Unavailable,
            c::StoreReply::Answered(a) => wit::StoreReply::Answered(reservation(a)),
        }
    }

    fn bucket(b: c::BucketCounts) -> wit::BucketCounts {
        wit::BucketCounts { total: b.total, retries: b.retries }
    }

    pub fn held(h: &c::HeldBuckets) -> wit::HeldBuckets {
        wit::HeldBuckets { bucket: h.bucket, current: bucket(h.current), previous: bucket(h.previous) }
    }
}

pub mod from_wit {
    use crate::bindings::wit;
    use retry_policy_core as c;

    pub fn error(e: wit::PolicyError) -> c::PolicyError {
        let code = match e.code {
            wit::ErrorCode::InvalidBackoff => c::ErrorCode::InvalidBackoff,
            wit::ErrorCode::InvalidHardCap => c::ErrorCode::InvalidHardCap,
            wit::ErrorCode::InvalidWindow => c::ErrorCode::InvalidWindow,
            wit::ErrorCode::InvalidBudget => c::ErrorCode::InvalidBudget,
            wit::ErrorCode::InvalidState => c::ErrorCode::InvalidState,
            wit::ErrorCode::InvalidStatus => c::ErrorCode::InvalidStatus,
            wit::ErrorCode::InvalidInput => c::ErrorCode::InvalidInput,
            wit::ErrorCode::InvalidDocument => c::ErrorCode::InvalidDocument,
            wit::ErrorCode::UnknownEventClass => c::ErrorCode::UnknownEventClass,
            wit::ErrorCode::InvalidRetryIndex => c::ErrorCode::InvalidRetryIndex,
            wit::ErrorCode::DocumentTooLarge => c::ErrorCode::DocumentTooLarge,
        };
        c::PolicyError::new(code, e.field, e.message)
    }

    pub fn policy(p: &wit::Policy) -> c::Policy {
        let b = &p.backoff;
        c::Policy {
            backoff: c::Backoff {
                base_ms: b.base_ms,
                factor: b.factor,
                cap_ms: b.cap_ms,
                jitter: match b.jitter {
                    wit::Jitter::None => c::Jitter::None,
                    wit::Jitter::Full => c::Jitter::Full,
                    wit::Jitter::Equal => c::Jitter::Equal,
                },
            },
            window_ms: p.window_ms,
            hard_cap: p.hard_cap,
            budget: c::Budget {
                ratio: p.budget.ratio,
                window_ms: p.budget.window_ms,
                min_sample: p.budget.min_sample,
                sliding: p.budget.sliding,
            },
        }
    }

    pub fn class(o: wit::OutcomeClass) -> c::OutcomeClass {
        match o {
            wit::OutcomeClass::Success => c::OutcomeClass::Success,
            wit::OutcomeClass::Retryable => c::OutcomeClass::Retryable,
            wit::OutcomeClass::Terminal => c::OutcomeClass::Terminal,
        }
    }

    pub fn plan(p: wit::Schedule) -> c::Plan {
        c::Plan {
            max_attempts: p.max_attempts,
            expected_span_ms: p.expected_span_ms,
            offsets_ms: p.offsets_ms,
            worst_case_span_ms: p.worst_case_span_ms,
            limited_by: match p.limited_by {
                wit::LimitedBy::Window => c::LimitedBy::Window,
                wit::LimitedBy::HardCap => c::LimitedBy::HardCap,
            },
        }
    }

    fn reason(r: wit::StopReason) -> c::StopReason {
        match r {
            wit::StopReason::Delivered => c::StopReason::Delivered,
            wit::StopReason::TerminalResponse => c::StopReason::TerminalResponse,
            wit::StopReason::MaxAttemptsExhausted => c::StopReason::MaxAttemptsExhausted,
            wit::StopReason::RetryWindowElapsed => c::StopReason::RetryWindowElapsed,
            wit::StopReason::RetryBudgetExhausted => c::StopReason::RetryBudgetExhausted,
            wit::StopReason::BudgetUnavailable => c::StopReason::BudgetUnavailable,
        }
    }

    pub fn dead_letter(d: wit::DeadLetter) -> c::DeadLetter {
        c::DeadLetter {
            event_id: d.event_id,
            endpoint_id: d.endpoint_id,
            attempts: d.attempts,
            elapsed_ms: d.elapsed_ms,
            stop_reason: reason(d.stop_reason),
        }
    }

    pub fn stop(s: wit::Stop) -> c::Stop {
        c::Stop {
            reason: reason(s.reason),
            disable_endpoint: s.disable_endpoint,
            dead_letter: s.dead_letter.map(dead_letter),
        }
    }

    pub fn decision(d: wit::Decision) -> c::Decision {
        match d {
            wit::Decision::Retry(r) => {
                c::Decision::Retry(c::Retry { delay_ms: r.delay_ms, refresh_credentials: r.refresh_credentials })
            }
            wit::Decision::Stop(s) => c::Decision::Stop(stop(s)),
        }
    }

    fn bucket(b: wit::BucketCounts) -> c::BucketCounts {
        c::BucketCounts { total: b.total, retries: b.retries }
    }

    pub fn counts(k: wit::BudgetCounts) -> c::BudgetCounts {
        c::BudgetCounts { current: bucket(k.current), previous: bucket(k.previous) }
    }

    pub fn request(r: wit::StoreRequest) -> c::StoreRequest {
        c::StoreRequest {
            op: match r.op {
                wit::StoreOp::Record => c::StoreOp::Record,
                wit::StoreOp::Reserve => c::StoreOp::Reserve,
                wit::StoreOp::RecordReserve => c::StoreOp::RecordReserve,
            },
            endpoint_id: r.endpoint_id,
            window_ms: r.window_ms,
            bucket: r.bucket,
        }
    }

    pub fn budget(b: wit::Budget) -> c::Budget {
        c::Budget { ratio: b.ratio, window_ms: b.window_ms, min_sample: b.min_sample, sliding: b.sliding }
    }

    pub fn reservation(r: wit::Reservation) -> c::Reservation {
        c::Reservation { reserved: r.reserved, counts: counts(r.counts) }
    }

    pub fn step(s: wit::Step) -> c::Step {
        c::Step { decision: s.decision.map(decision), store: s.store.map(request) }
    }

    pub fn settlement(s: wit::Settlement) -> c::Settlement {
        c::Settlement { decision: decision(s.decision), budget_disagreement: s.budget_disagreement }
    }

    pub fn applied(a: wit::Applied) -> (c::Reservation, c::HeldBuckets) {
        let h = a.held;
        (
            reservation(a.reply),
            c::HeldBuckets { bucket: h.bucket, current: bucket(h.current), previous: bucket(h.previous) },
        )
    }
}
