//! The strict codec: any JSON value into every input type never panics,
//! refuses with the codes the contract allows for that type, and what the
//! codec encodes decodes back to the same value.
#![no_main]
use libfuzzer_sys::fuzz_target;
use retry_policy_core::codec;
use retry_policy_core::json::{self, Value};
use retry_policy_core::ErrorCode::{self, *};
use retry_policy_core::PolicyError;

fn only<T>(r: Result<T, PolicyError>, codes: &[ErrorCode], what: &str) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            assert!(codes.contains(&e.code), "{what}: unexpected code {e}");
            None
        }
    }
}

fn decode_all(v: &Value) {
    only(codec::backoff(v), &[InvalidInput, InvalidBackoff], "backoff");
    only(codec::budget(v), &[InvalidInput], "budget");
    only(codec::policy(v), &[InvalidInput, InvalidBackoff], "policy");
    only(codec::state(v), &[InvalidInput], "state");
    only(codec::outcome(v), &[InvalidInput, InvalidStatus], "outcome");
    only(codec::bucket_counts(v), &[InvalidInput], "bucket_counts");
    only(codec::budget_counts(v), &[InvalidInput], "budget_counts");
    only(codec::as_u64(v), &[InvalidInput], "as_u64");
    if let Some(r) = only(codec::store_request(v), &[InvalidInput], "store_request") {
        assert_eq!(codec::store_request(&codec::store_request_to_value(&r)), Ok(r));
    }
    if let Some(reply) = only(codec::store_reply(v), &[InvalidInput], "store_reply") {
        if let retry_policy_core::StoreReply::Answered(r) = reply {
            let back = codec::store_reply(&codec::reservation_to_value(&r)).expect("round trip");
            assert_eq!(back, reply);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(v) = json::parse(text) else { return };
    decode_all(&v);
    if let Value::Object(members) = &v {
        for (_, m) in members {
            decode_all(m);
            if let Value::Object(inner) = m {
                for (_, n) in inner {
                    decode_all(n);
                }
            }
        }
    }
});
