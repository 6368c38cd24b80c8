//! Field mapping between `policy-core` types and the generated WIT types.
//! No policy logic lives here.

/// `$v` as the same-named unit variant of the other enum.
macro_rules! variants {
    ($v:expr, $fm:ident::$fe:ident => $tm:ident::$te:ident: $($var:ident),+) => {
        match $v { $($fm::$fe::$var => $tm::$te::$var),+ }
    };
}

/// A record built from `$v`'s same-named fields.
macro_rules! fields {
    ($v:expr => $($t:ident)::+ { $($f:ident),+ }) => {{
        let v = $v;
        $($t)::+ { $($f: v.$f),+ }
    }};
}

pub mod to_wit {
    use crate::bindings::wit;
    use retry_policy_core as c;

    pub fn backoff(b: &c::Backoff) -> wit::Backoff {
        let jitter = variants!(b.jitter, c::Jitter => wit::Jitter: None, Full, Equal);
        wit::Backoff { base_ms: b.base_ms, factor: b.factor, cap_ms: b.cap_ms, jitter }
    }

    pub fn budget(b: &c::Budget) -> wit::Budget {
        fields!(b => wit::Budget { ratio, window_ms, min_sample, sliding })
    }

    pub fn policy(p: &c::Policy) -> wit::Policy {
        let (backoff, budget) = (backoff(&p.backoff), budget(&p.budget));
        wit::Policy { backoff, window_ms: p.window_ms, hard_cap: p.hard_cap, budget }
    }

    fn bucket(b: c::BucketCounts) -> wit::BucketCounts {
        fields!(b => wit::BucketCounts { total, retries })
    }

    pub fn state(s: &c::DeliveryState) -> wit::DeliveryState {
        let s = s.clone();
        fields!(s => wit::DeliveryState { event_id, endpoint_id, attempt, max_attempts, first_attempted_at_ms, credentials_refreshed })
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
        let op = variants!(r.op, c::StoreOp => wit::StoreOp: Record, Reserve, RecordReserve);
        wit::StoreRequest { op, endpoint_id: r.endpoint_id.clone(), window_ms: r.window_ms, bucket: r.bucket }
    }

    pub fn reservation(r: &c::Reservation) -> wit::Reservation {
        let counts = wit::BudgetCounts { current: bucket(r.counts.current), previous: bucket(r.counts.previous) };
        wit::Reservation { reserved: r.reserved, counts }
    }

    pub fn reply(r: &c::StoreReply) -> wit::StoreReply {
        match r {
            c::StoreReply::Unavailable => wit::StoreReply::Unavailable,
            c::StoreReply::Answered(a) => wit::StoreReply::Answered(reservation(a)),
        }
    }

    pub fn held(h: &c::HeldBuckets) -> wit::HeldBuckets {
        wit::HeldBuckets { bucket: h.bucket, current: bucket(h.current), previous: bucket(h.previous) }
    }
}

pub mod from_wit {
    use crate::bindings::wit;
    use retry_policy_core as c;

    pub fn error(e: wit::PolicyError) -> c::PolicyError {
        let code = variants!(e.code, wit::ErrorCode => c::ErrorCode: InvalidBackoff, InvalidHardCap, InvalidWindow,
            InvalidBudget, InvalidState, InvalidStatus, InvalidInput, InvalidDocument, UnknownEventClass,
            InvalidRetryIndex, DocumentTooLarge);
        c::PolicyError::new(code, e.field, e.message)
    }

    pub fn policy(p: &wit::Policy) -> c::Policy {
        let b = &p.backoff;
        let jitter = variants!(b.jitter, wit::Jitter => c::Jitter: None, Full, Equal);
        c::Policy {
            backoff: c::Backoff { base_ms: b.base_ms, factor: b.factor, cap_ms: b.cap_ms, jitter },
            window_ms: p.window_ms,
            hard_cap: p.hard_cap,
            budget: budget(p.budget),
        }
    }

    pub fn class(o: wit::OutcomeClass) -> c::OutcomeClass {
        variants!(o, wit::OutcomeClass => c::OutcomeClass: Success, Retryable, Terminal)
    }

    pub fn plan(p: wit::Schedule) -> c::Plan {
        let limited_by = variants!(p.limited_by, wit::LimitedBy => c::LimitedBy: Window, HardCap);
        let (max_attempts, expected_span_ms, worst_case_span_ms) =
            (p.max_attempts, p.expected_span_ms, p.worst_case_span_ms);
        c::Plan { max_attempts, expected_span_ms, offsets_ms: p.offsets_ms, worst_case_span_ms, limited_by }
    }

    fn reason(r: wit::StopReason) -> c::StopReason {
        variants!(r, wit::StopReason => c::StopReason: Delivered, TerminalResponse, MaxAttemptsExhausted,
            RetryWindowElapsed, RetryBudgetExhausted, BudgetUnavailable)
    }

    pub fn decision(d: wit::Decision) -> c::Decision {
        match d {
            wit::Decision::Retry(r) => c::Decision::Retry(fields!(r => c::Retry { delay_ms, refresh_credentials })),
            wit::Decision::Stop(s) => c::Decision::Stop(c::Stop {
                reason: reason(s.reason),
                disable_endpoint: s.disable_endpoint,
                dead_letter: s.dead_letter.map(|d| c::DeadLetter {
                    event_id: d.event_id,
                    endpoint_id: d.endpoint_id,
                    attempts: d.attempts,
                    elapsed_ms: d.elapsed_ms,
                    stop_reason: reason(d.stop_reason),
                }),
            }),
        }
    }

    fn bucket(b: wit::BucketCounts) -> c::BucketCounts {
        fields!(b => c::BucketCounts { total, retries })
    }

    pub fn request(r: wit::StoreRequest) -> c::StoreRequest {
        let op = variants!(r.op, wit::StoreOp => c::StoreOp: Record, Reserve, RecordReserve);
        c::StoreRequest { op, endpoint_id: r.endpoint_id, window_ms: r.window_ms, bucket: r.bucket }
    }

    pub fn budget(b: wit::Budget) -> c::Budget {
        fields!(b => c::Budget { ratio, window_ms, min_sample, sliding })
    }

    pub fn reservation(r: wit::Reservation) -> c::Reservation {
        let counts = c::BudgetCounts { current: bucket(r.counts.current), previous: bucket(r.counts.previous) };
        c::Reservation { reserved: r.reserved, counts }
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
