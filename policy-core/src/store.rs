//! The store protocol: what a budget store is asked, and what its answer
//! means. An attempt costs at most one store call.
//!
//! Per endpoint (and budget bucket width) the store keeps the bucket counts
//! of [`crate::budget`]. It answers three requests, each in one call atomic
//! with respect to every other call on that endpoint:
//!
//! * [`StoreOp::Record`]: add 1 to `total` of the bucket (a first attempt
//!   whose outcome is known).
//! * [`StoreOp::Reserve`]: judge `allows_retry` on the bucket and the one
//!   before it; if it allows, add 1 to `total` and to `retries`. The reply
//!   carries the counts it judged, so [`crate::step::settle`] can tell when
//!   a store's rule has drifted from the policy's.
//! * [`StoreOp::RecordReserve`]: `Record`, then `Reserve`, in the same call
//!   (the judged counts include the recorded attempt).
//!
//! A retry is counted when it is reserved, so the attempt it leads to is
//! never recorded again.
//!
//! [`apply`] is the rule itself on what an in-memory store holds
//! ([`HeldBuckets`]); `fleet/budget.lua` is the same rule for Redis, and the
//! fleet tests prove the two agree on every vector.

use alloc::string::String;
use alloc::vec::Vec;

use crate::budget::{BucketCounts, Budget, BudgetCounts};

/// What a request asks of the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreOp {
    Record,
    Reserve,
    RecordReserve,
}

impl StoreOp {
    pub const fn as_str(self) -> &'static str {
        match self {
            StoreOp::Record => "record",
            StoreOp::Reserve => "reserve",
            StoreOp::RecordReserve => "record_reserve",
        }
    }

    pub fn parse(s: &str) -> Option<StoreOp> {
        [StoreOp::Record, StoreOp::Reserve, StoreOp::RecordReserve].into_iter().find(|o| o.as_str() == s)
    }

    /// Whether the request counts a first attempt.
    pub const fn records(self) -> bool {
        matches!(self, StoreOp::Record | StoreOp::RecordReserve)
    }

    /// Whether the request judges (and maybe counts) a retry.
    pub const fn reserves(self) -> bool {
        matches!(self, StoreOp::Reserve | StoreOp::RecordReserve)
    }
}

/// The one store call an attempt needs. `bucket` is computed by the policy
/// (`floor(now_ms / window_ms)`), so no host ever computes one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StoreRequest {
    pub op: StoreOp,
    pub endpoint_id: String,
    /// The budget's bucket width.
    pub window_ms: u64,
    pub bucket: u64,
}

/// A store's answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reservation {
    /// A retry was reserved (always false for `record`).
    pub reserved: bool,
    /// The counts the reservation was judged on (for `record`: after it).
    pub counts: BudgetCounts,
}

/// What the host hands to `settle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreReply {
    /// The call failed or timed out: the budget fails closed.
    Unavailable,
    Answered(Reservation),
}

/// What an in-memory store holds for one endpoint and bucket width: the
/// newest bucket it has seen and the one before it. `Default` is "nothing".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HeldBuckets {
    pub bucket: u64,
    pub current: BucketCounts,
    pub previous: BucketCounts,
}

/// The counts of `bucket` and `bucket - 1` as `held` knows them.
pub(crate) fn view(held: &HeldBuckets, bucket: u64) -> BudgetCounts {
    let get = |b: u64| {
        if b == held.bucket {
            held.current
        } else if Some(b) == held.bucket.checked_sub(1) {
            held.previous
        } else {
            BucketCounts::default()
        }
    };
    let previous = bucket.checked_sub(1).map_or(BucketCounts::default(), get);
    BudgetCounts { current: get(bucket), previous }
}

/// Roll `held` forward to `bucket` (a later bucket starts empty; the one
/// before it is kept only if it is the newest held).
fn roll(held: &HeldBuckets, bucket: u64) -> HeldBuckets {
    if bucket <= held.bucket {
        return *held;
    }
    let c = view(held, bucket);
    HeldBuckets { bucket, current: c.current, previous: c.previous }
}

/// Add one attempt (and one retry if `retry`) to `bucket` in `held`. A
/// bucket older than both held ones is no longer read by anyone: dropped.
fn count(held: &mut HeldBuckets, bucket: u64, retry: bool) {
    let slot = if bucket == held.bucket {
        &mut held.current
    } else if Some(bucket) == held.bucket.checked_sub(1) {
        &mut held.previous
    } else {
        return;
    };
    slot.total = slot.total.saturating_add(1);
    slot.retries = slot.retries.saturating_add(u64::from(retry));
}

/// The store's rule: answer `request` on what it holds, judged with
/// `budget` at `now_ms`. Returns the reply and what to hold afterwards.
pub fn apply(request: &StoreRequest, budget: &Budget, now_ms: u64, held: &HeldBuckets) -> (Reservation, HeldBuckets) {
    let mut held = roll(held, request.bucket);
    if request.op.records() {
        count(&mut held, request.bucket, false);
    }
    let counts = view(&held, request.bucket);
    if !request.op.reserves() {
        return (Reservation { reserved: false, counts }, held);
    }
    let reserved = budget.allows_retry(now_ms, &counts);
    if reserved {
        count(&mut held, request.bucket, true);
    }
    (Reservation { reserved, counts }, held)
}

/// The key a shared store files an endpoint's counts under, for one bucket
/// width: `rb:{e<endpoint id as lowercase hex>}:<window_ms>`. Hex makes the
/// key injective for ids of any content (`{`, `}`, empty, non-ASCII); the
/// `e` keeps the Redis Cluster hash tag non-empty and brace-free, and every
/// bucket of an endpoint lives in this one key, hence one slot.
pub fn store_key(request: &StoreRequest) -> String {
    // Built as bytes in one allocation (every store-backed step of ABI 0.3
    // returns its key; the width no longer allocates a `String` of its own).
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let id = request.endpoint_id.as_bytes();
    let mut k = Vec::with_capacity(id.len() * 2 + 28);
    k.extend_from_slice(b"rb:{e");
    for &b in id {
        k.extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
    }
    k.extend_from_slice(b"}:");
    crate::text::dec_into(&mut k, request.window_ms);
    // Only ASCII was written, so this never fails.
    String::from_utf8(k).unwrap_or_default()
}
