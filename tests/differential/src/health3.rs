//! Format 3's expectations (docs/health.md section 7): the reference
//! runner, `policy_core::health::vectors::run_case` (the one
//! policy-core/tests/health_vectors.rs runs), so a generated case expects
//! what a hand-written one in tests/vectors/format3-* would.
//!
//! A refusal is `{error, field}`. An `invalid_input` is a generator bug
//! (a shape the runners would call a broken vector) unless it is one of the
//! value checks a host's call can hit ([`VALUE_CHECKS`]).

use retry_policy_core::health::codec;
use retry_policy_core::health::vectors::run_case;
use retry_policy_core::json::Value;
use retry_policy_core::ErrorCode;

/// `invalid_input` fields a well-formed case can be refused with.
const VALUE_CHECKS: [&str; 4] = ["tokens", "normal_per_s", "multiple", "floor_per_s"];

/// The case's `expect`, or why the case is broken.
pub fn expect(op: &str, input: &Value) -> Result<Value, String> {
    match run_case(op, input) {
        Ok(v) => Ok(v),
        Err(e) if e.code == ErrorCode::InvalidInput && !VALUE_CHECKS.iter().any(|k| e.field.ends_with(k)) => {
            Err(format!("generator produced a broken vector: {e}"))
        }
        // A document's refusal pins its path (docs/health.md section 1); any
        // other op's pins only the code, as the format-2 vectors do: where a
        // refused input's path starts (`policy.`, `state.`, the decoder's or
        // the policy's) is each host's reading, not the contract.
        Err(e) if op == "parse_document" => Ok(codec::error_to_value(&e)),
        Err(e) => Ok(Value::Object(vec![("error".into(), e.code.as_str().into())])),
    }
}
