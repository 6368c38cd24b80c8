//! The reference runner of format 3's vectors (docs/health.md section 7):
//! one case's `op` and `input` decoded, run through this module's pure
//! functions and encoded with [`super::codec`], in the shapes of
//! `tests/vectors/format3-*.json`. The decoding lives once, in
//! [`crate::vectors`] (every host's runner shares it); this is that runner
//! on [`crate::vectors::Native`], answering a refusal as the error itself,
//! for policy-core's own vector test and the cross-host differential's
//! expectation writer.

use crate::json::Value;
use crate::vectors::{health_ops, Native};
use crate::{ErrorCode, PolicyError};

/// One case of a format-3 vector file (`op`, `input`): its answer in the
/// vectors' shapes, or the refusal (shape errors of the input included, as
/// `invalid_input`).
pub fn run_case(op: &str, input: &Value) -> Result<Value, PolicyError> {
    health_ops::run_op(&mut Native, op, input).map_err(|e| match e {
        Ok(refusal) => refusal,
        Err(broken) => PolicyError::new(ErrorCode::InvalidInput, "op", &broken),
    })
}
