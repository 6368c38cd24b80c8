//! A whole ABI 0.3 `store-call` in Redis (docs/health.md section 3, "Redis
//! encoding"): its `ARGV` for `fleet/budget.lua` (the format-2 eight, plus
//! ten health arguments, 18 in all, when the call has health fields), and
//! the reply read into a [`CallReply`]: 5 integers for a format-2 call, 11
//! for a health call (`reserved` -1 for `report` and `probe`, `granted` -1
//! except for `probe`, then the view). Any other shape is a typed
//! [`RedisError::Protocol`], never a panic.

use redis::Value;
use retry_policy_core::compiled::{CallReply, StoreCall};

use crate::redis_error::RedisError;

/// `ARGV` of the script for `call` at `now_ms` (8 arguments for a format-2
/// call, 18 with health fields): the engine's encoding, written once in
/// `policy-core` (`engine::call_argv`).
pub use retry_policy_core::engine::call_argv;

/// The script's reply to `call` as the component's [`CallReply`]: the
/// integers read here, their meaning by the engine's reader
/// (`engine::parse_reply`, written once in `policy-core`).
pub fn parse_call_reply(call: &StoreCall, v: &Value) -> Result<CallReply, RedisError> {
    let Value::Array(items) = v else {
        return Err(RedisError::Protocol("budget.lua answered something other than integers".into()));
    };
    let ints = items
        .iter()
        .map(|i| match i {
            Value::Int(x) => Ok(*x),
            _ => Err(RedisError::Protocol("budget.lua answered a value that is not an integer".into())),
        })
        .collect::<Result<Vec<i64>, _>>()?;
    retry_policy_core::engine::parse_reply(call, &ints)
        .map_err(|e| RedisError::Protocol(format!("budget.lua answered {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_policy_core::compiled::{CallOp, HealthCall};
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
