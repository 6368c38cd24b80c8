//! A whole ABI 0.3 `store-call` in Redis (docs/health.md section 3, "Redis
//! encoding"): its `ARGV` for `fleet/budget.lua` (the format-2 eight, plus
//! ten health arguments, 18 in all, when the call has health fields), and
//! the reply read into a [`CallReply`]: 5 integers for a format-2 call, 11
//! for a health call (`reserved` -1 for `report` and `probe`, `granted` -1
//! except for `probe`, then the view). Any other shape is a typed
//! [`RedisError::Protocol`], never a panic.

use redis::Value;
use retry_policy_core::compiled::{CallOp, CallReply, StoreCall};
use retry_policy_core::health::HealthView;
use retry_policy_core::{BucketCounts, BudgetCounts, Reservation};

use crate::redis_error::RedisError;

fn op_name(op: CallOp) -> &'static str {
    match op {
        CallOp::Record => "record",
        CallOp::Reserve => "reserve",
        CallOp::RecordReserve => "record_reserve",
        CallOp::Report => "report",
        CallOp::Probe => "probe",
    }
}

/// `ARGV` of the script for `call` at `now_ms`: 8 arguments for a format-2
/// call, 18 with health fields (floats as their shortest round-trip text).
pub fn call_argv(call: &StoreCall, now_ms: u64, skew_check: bool) -> Vec<String> {
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    let b = &call.budget;
    let mut argv = vec![
        op_name(call.op).to_string(),
        call.bucket.to_string(),
        b.window_ms.to_string(),
        now_ms.to_string(),
        format!("{}", b.ratio),
        b.min_sample.to_string(),
        flag(b.sliding),
        flag(skew_check),
    ];
    if let Some(h) = &call.health {
        argv.extend([h.outcome.as_str().to_string(), h.pause_until_ms.to_string(), flag(h.probe)]);
        match &h.circuit {
            Some(c) => argv.extend([
                "1".to_string(),
                format!("{}", c.failure_ratio),
                c.min_sample.to_string(),
                c.cooldown_ms.to_string(),
                c.cooldown_max_ms.to_string(),
                c.probes.to_string(),
                c.probe_interval_ms.to_string(),
            ]),
            None => argv.extend(std::iter::repeat_n("0".to_string(), 7)),
        }
    }
    argv
}

fn malformed(what: &str) -> RedisError {
    RedisError::Protocol(format!("budget.lua answered {what}"))
}

fn integers(v: &Value, n: usize) -> Result<Vec<i64>, RedisError> {
    match v {
        Value::Array(items) if items.len() == n => items
            .iter()
            .map(|i| match i {
                Value::Int(x) => Ok(*x),
                _ => Err(malformed("a value that is not an integer")),
            })
            .collect(),
        _ => Err(malformed(&format!("something other than {n} integers"))),
    }
}

fn count(x: i64) -> Result<u64, RedisError> {
    u64::try_from(x).map_err(|_| malformed("a negative count or instant"))
}

fn reservation(n: &[i64]) -> Result<Reservation, RedisError> {
    if !(0..=1).contains(&n[0]) {
        return Err(malformed("`reserved` other than 0 or 1"));
    }
    Ok(Reservation {
        reserved: n[0] == 1,
        counts: BudgetCounts {
            current: BucketCounts { total: count(n[1])?, retries: count(n[2])? },
            previous: BucketCounts { total: count(n[3])?, retries: count(n[4])? },
        },
    })
}

/// The script's reply to `call` as the component's [`CallReply`].
pub fn parse_call_reply(call: &StoreCall, v: &Value) -> Result<CallReply, RedisError> {
    if call.health.is_none() {
        let n = integers(v, 5)?;
        return Ok(CallReply { reservation: Some(reservation(&n)?), granted: None, view: None });
    }
    let n = integers(v, 11)?;
    let budget_op = !matches!(call.op, CallOp::Report | CallOp::Probe);
    let reservation = match (budget_op, n[0]) {
        (true, _) => Some(reservation(&n)?),
        (false, -1) => None,
        (false, _) => return Err(malformed("a reservation to a `report` or `probe` call")),
    };
    let granted = match (call.op == CallOp::Probe, n[5]) {
        (true, 0) => Some(false),
        (true, 1) => Some(true),
        (false, -1) => None,
        _ => return Err(malformed("a `granted` that does not fit the op")),
    };
    let view = HealthView {
        paused_until_ms: count(n[6])?,
        opened_at_ms: count(n[7])?,
        cooldown_ms: count(n[8])?,
        closed_at_ms: count(n[9])?,
        as_of_ms: count(n[10])?,
    };
    Ok(CallReply { reservation, granted, view: Some(view) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_policy_core::compiled::HealthCall;
    use retry_policy_core::health::{Circuit, HealthOutcome};
    use retry_policy_core::Budget;

    fn ints(xs: &[i64]) -> Value {
        Value::Array(xs.iter().map(|x| Value::Int(*x)).collect())
    }

    fn call(op: CallOp, circuit: Option<Circuit>) -> StoreCall {
        StoreCall {
            op,
            key: "rb:{e6570}:60000".into(),
            endpoint_id: "ep".into(),
            bucket: 28_333_333,
            budget: Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true },
            health: Some(HealthCall { outcome: HealthOutcome::Failure, pause_until_ms: 7, probe: true, circuit }),
        }
    }

    #[test]
    fn a_health_call_is_eighteen_arguments_in_the_scripts_order() {
        let c = Circuit {
            failure_ratio: 0.3,
            min_sample: 20,
            cooldown_ms: 5000,
            cooldown_max_ms: 120_000,
            probes: 2,
            probe_interval_ms: 1000,
        };
        let a = call_argv(&call(CallOp::RecordReserve, Some(c)), 1_700_000_000_123, true);
        let want = [
            "record_reserve",
            "28333333",
            "60000",
            "1700000000123",
            "0.1",
            "50",
            "1",
            "1",
            "failure",
            "7",
            "1",
            "1",
            "0.3",
            "20",
            "5000",
            "120000",
            "2",
            "1000",
        ];
        assert_eq!(a, want.map(String::from));
        let none = call_argv(&call(CallOp::Report, None), 5, false);
        assert_eq!(none.len(), 18);
        assert_eq!(&none[11..], ["0"; 7].map(String::from));
        let mut plain = call(CallOp::Reserve, None);
        plain.health = None;
        assert_eq!(call_argv(&plain, 5, true).len(), 8, "a format-2 call stays 8 arguments");
    }

    #[test]
    fn eleven_integers_are_a_reply_with_its_view_and_only_the_ops_fields() {
        let r = parse_call_reply(&call(CallOp::Reserve, None), &ints(&[1, 10, 2, 7, 0, -1, 9, 8, 7, 6, 5])).unwrap();
        assert!(r.reservation.unwrap().reserved);
        assert_eq!(r.granted, None);
        let v = r.view.unwrap();
        assert_eq!((v.paused_until_ms, v.opened_at_ms, v.cooldown_ms, v.closed_at_ms, v.as_of_ms), (9, 8, 7, 6, 5));
        let p = parse_call_reply(&call(CallOp::Probe, None), &ints(&[-1, 0, 0, 0, 0, 1, 0, 4, 5, 0, 9])).unwrap();
        assert_eq!((p.reservation, p.granted), (None, Some(true)));
        let rep = parse_call_reply(&call(CallOp::Report, None), &ints(&[-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 9])).unwrap();
        assert_eq!((rep.reservation, rep.granted), (None, None));
    }

    #[test]
    fn health_replies_of_any_other_shape_are_typed_protocol_errors() {
        let health = call(CallOp::Reserve, None);
        let probe = call(CallOp::Probe, None);
        for (c, bad) in [
            (&health, ints(&[1, 0, 0, 0, 0])),
            (&health, ints(&[1, 0, 0, 0, 0, -1, 0, 0, 0, 0])),
            (&health, ints(&[2, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0])),
            (&health, ints(&[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0])),
            (&health, ints(&[1, 0, 0, 0, 0, -1, -5, 0, 0, 0, 0])),
            (&probe, ints(&[-1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0])),
            (&probe, ints(&[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0])),
            (&probe, Value::Nil),
        ] {
            assert!(matches!(parse_call_reply(c, &bad), Err(RedisError::Protocol(_))), "{bad:?}");
        }
    }
}
