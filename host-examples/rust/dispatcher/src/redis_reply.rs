//! What goes to `fleet/budget.lua` and what comes back: its `ARGV`, and its
//! answer read into a [`Reservation`]. An answer of any other shape is a
//! typed [`RedisError::Protocol`] (a failed call, never a panic).

use redis::Value;
use retry_policy_core::{BucketCounts, Budget, BudgetCounts, Reservation, StoreRequest};

use crate::redis_error::RedisError;

/// `ARGV` of the script: op, bucket, window_ms, now_ms, ratio (shortest
/// round-trip text: Rust's `{}` of an f64), min_sample, sliding, skew check.
pub fn argv(request: &StoreRequest, budget: &Budget, now_ms: u64, skew_check: bool) -> [String; 8] {
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    [
        request.op.as_str().to_string(),
        request.bucket.to_string(),
        request.window_ms.to_string(),
        now_ms.to_string(),
        format!("{}", budget.ratio),
        budget.min_sample.to_string(),
        flag(budget.sliding),
        flag(skew_check),
    ]
}

fn malformed(what: &str) -> RedisError {
    RedisError::Protocol(format!("budget.lua answered {what}"))
}

/// `[reserved, cur_total, cur_retries, prev_total, prev_retries]`; any
/// other shape is a failed call.
pub fn parse_reply(v: &Value) -> Result<Reservation, RedisError> {
    let items = match v {
        Value::Array(items) if items.len() == 5 => items,
        _ => return Err(malformed("something other than 5 integers")),
    };
    let mut n = [0u64; 5];
    for (slot, item) in n.iter_mut().zip(items) {
        *slot = match item {
            Value::Int(x) if *x >= 0 => *x as u64,
            _ => return Err(malformed("a count that is not a non-negative integer")),
        };
    }
    if n[0] > 1 {
        return Err(malformed("`reserved` other than 0 or 1"));
    }
    Ok(Reservation {
        reserved: n[0] == 1,
        counts: BudgetCounts {
            current: BucketCounts { total: n[1], retries: n[2] },
            previous: BucketCounts { total: n[3], retries: n[4] },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_policy_core::StoreOp;

    fn ints(xs: &[i64]) -> Value {
        Value::Array(xs.iter().map(|x| Value::Int(*x)).collect())
    }

    #[test]
    fn the_script_gets_the_ratio_as_its_shortest_exact_text_and_the_skew_flag_last() {
        let request = StoreRequest {
            op: StoreOp::RecordReserve,
            endpoint_id: "ep_42".into(),
            window_ms: 60_000,
            bucket: 28_333_333,
        };
        let b = Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true };
        let a = argv(&request, &b, 1_700_000_000_123, true);
        assert_eq!(
            a,
            ["record_reserve", "28333333", "60000", "1700000000123", "0.1", "50", "1", "1"].map(String::from)
        );
        assert_eq!(a[4].parse::<f64>().unwrap(), 0.1);
    }

    #[test]
    fn five_non_negative_integers_are_a_reservation() {
        let r = parse_reply(&ints(&[1, 10, 2, 7, 0])).unwrap();
        assert!(r.reserved);
        assert_eq!((r.counts.current.total, r.counts.current.retries, r.counts.previous.total), (10, 2, 7));
        assert!(!parse_reply(&ints(&[0, 0, 0, 0, 0])).unwrap().reserved);
    }

    #[test]
    fn replies_of_any_other_shape_are_typed_protocol_errors_not_panics() {
        for bad in [
            Value::Nil,
            Value::Int(1),
            Value::Okay,
            Value::Array(vec![]),
            ints(&[1, 2, 3]),
            ints(&[1, 2, 3, 4, 5, 6]),
            ints(&[2, 0, 0, 0, 0]),
            ints(&[0, -1, 0, 0, 0]),
            Value::Array(vec![Value::BulkString(b"1".to_vec()); 5]),
            Value::Array(vec![Value::Double(1.0); 5]),
            Value::Array(vec![ints(&[1]), Value::Int(0), Value::Int(0), Value::Int(0), Value::Int(0)]),
        ] {
            assert!(matches!(parse_reply(&bad), Err(RedisError::Protocol(_))), "{bad:?}");
        }
    }
}
