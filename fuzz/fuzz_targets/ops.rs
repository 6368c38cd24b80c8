//! Every policy-core operation on one structured case (policy, state,
//! outcome, now, store reply, counts, retry index, header, held buckets),
//! biased to the contract's boundaries; `check_native` asserts the
//! invariants (a retry keeps elapsed + delay <= window; settle follows the
//! reservation when the decision was open; the store request's bucket is
//! now / window; decide == settle with the rule's verdict; ...).
#![no_main]
use libfuzzer_sys::fuzz_target;
use retry_policy_fuzz_ops::{check_native, Case};

fuzz_target!(|case: Case| {
    check_native(&case);
});
