//! Every policy-core operation on one structured case (policy, state,
//! outcome, now, store reply, counts, retry index, header, held buckets),
//! biased to the contract's boundaries; `check_native` asserts the
//! invariants (a retry keeps elapsed + delay <= window; settle follows the
//! reservation when the decision was open; the store request's bucket is
//! now / window; decide == settle with the rule's verdict; ...).
//!
//! Then ABI 0.3 on the same case plus a section, a gate event, a view, a
//! pacer, a wake and a stale or live handle (`HealthCase`, which starts
//! with the `Case`, so older corpus entries keep their meaning):
//! `check_health` asserts the compiled calls equal format 2's and format
//! 3's free functions, holds end by the deadline, the pacer stays in range,
//! a stale handle is refused, the store's reply has a view exactly with
//! health.
#![no_main]
use libfuzzer_sys::fuzz_target;
use retry_policy_fuzz_ops::{check_health, check_native, HealthCase};

fuzz_target!(|h: HealthCase| {
    check_native(&h.case);
    check_health(&h);
});
