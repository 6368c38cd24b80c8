//! A [`StoreCall`] as `fleet/budget.lua` takes it, and its integer reply
//! read back (docs/contract.md "The store in Redis", docs/health.md section
//! 3 "Redis encoding"). The host only runs `EVALSHA sha 1 key argv...`;
//! the encoding lives here, once, so no host carries its own.
//!
//! A [`SharedStore`] answers the same calls with the same rule
//! ([`apply_call`]): inside the engine (`memory_store`: a single-replica
//! dispatcher needs no store at all), or outside it for any number of
//! engines, from the wire form itself ([`SharedStore::answer_wire`] reads
//! back what [`call_argv`] wrote: [`decode_argv`]), as a simulator that
//! plays the fleet's Redis does.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use crate::budget::{BucketCounts, Budget, BudgetCounts};
use crate::compiled::{apply_call, CallOp, CallReply, HealthCall, StoreCall};
use crate::health::{Circuit, HealthOutcome, HealthView, HeldHealth};
use crate::store::Reservation;

const OPS: [CallOp; 5] = [CallOp::Record, CallOp::Reserve, CallOp::RecordReserve, CallOp::Report, CallOp::Probe];

pub(crate) fn op_name(op: CallOp) -> &'static str {
    match op {
        CallOp::Record => "record",
        CallOp::Reserve => "reserve",
        CallOp::RecordReserve => "record_reserve",
        CallOp::Report => "report",
        CallOp::Probe => "probe",
    }
}

/// A double as the script reads it: its shortest round-trip text, as the
/// journal writes doubles (`0.1`, `1e-7`), with no `.0` on an integral
/// value (`1`): what Rust's `{}` wrote before, without core's float
/// formatting in the component (14 KB).
fn float_text(x: f64) -> String {
    let text = crate::journal::json_text::to_text(&crate::json::Value::Float(x));
    match text.strip_suffix(".0") {
        Some(t) => String::from(t),
        None => text,
    }
}

/// `ARGV` for `call` at `now_ms`: 8 arguments for a format-2 call, 18 with
/// health fields.
pub fn call_argv(call: &StoreCall, now_ms: u64, skew_check: bool) -> Vec<String> {
    let flag = |b: bool| String::from(if b { "1" } else { "0" });
    let b = &call.budget;
    let mut argv = vec![
        String::from(op_name(call.op)),
        call.bucket.to_string(),
        b.window_ms.to_string(),
        now_ms.to_string(),
        float_text(b.ratio),
        b.min_sample.to_string(),
        flag(b.sliding),
        flag(skew_check),
    ];
    if let Some(h) = &call.health {
        argv.extend([String::from(h.outcome.as_str()), h.pause_until_ms.to_string(), flag(h.probe)]);
        match &h.circuit {
            Some(c) => argv.extend([
                String::from("1"),
                float_text(c.failure_ratio),
                c.min_sample.to_string(),
                c.cooldown_ms.to_string(),
                c.cooldown_max_ms.to_string(),
                c.probes.to_string(),
                c.probe_interval_ms.to_string(),
            ]),
            None => argv.extend(core::iter::repeat_n(String::from("0"), 7)),
        }
    }
    argv
}

fn count(x: i64) -> Result<u64, String> {
    u64::try_from(x).map_err(|_| String::from("a negative count or instant"))
}

fn reservation(n: &[i64]) -> Result<Reservation, String> {
    if !(0..=1).contains(&n[0]) {
        return Err(String::from("`reserved` other than 0 or 1"));
    }
    Ok(Reservation {
        reserved: n[0] == 1,
        counts: BudgetCounts {
            current: BucketCounts { total: count(n[1])?, retries: count(n[2])? },
            previous: BucketCounts { total: count(n[3])?, retries: count(n[4])? },
        },
    })
}

/// The script's reply to `call`: 5 integers (format 2) or 11 (with health).
/// Any other shape is an error naming what was wrong (the engine then
/// treats the call as failed: fails closed).
pub fn parse_reply(call: &StoreCall, n: &[i64]) -> Result<CallReply, String> {
    if call.health.is_none() {
        if n.len() != 5 {
            return Err(format!("budget.lua answered {} integers, not 5", n.len()));
        }
        return Ok(CallReply { reservation: Some(reservation(n)?), granted: None, view: None });
    }
    if n.len() != 11 {
        return Err(format!("budget.lua answered {} integers, not 11", n.len()));
    }
    let budget_op = !matches!(call.op, CallOp::Report | CallOp::Probe);
    let reservation = match (budget_op, n[0]) {
        (true, _) => Some(reservation(n)?),
        (false, -1) => None,
        (false, _) => return Err(String::from("a reservation to a `report` or `probe` call")),
    };
    let granted = match (call.op == CallOp::Probe, n[5]) {
        (true, 0) => Some(false),
        (true, 1) => Some(true),
        (false, -1) => None,
        _ => return Err(String::from("a `granted` that does not fit the op")),
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

/// A reply as the script's integers (what [`parse_reply`] reads back).
pub fn reply_ints(call: &StoreCall, r: &CallReply) -> Vec<i64> {
    let clamp = |x: u64| i64::try_from(x).unwrap_or(i64::MAX);
    let mut n = match &r.reservation {
        Some(res) => vec![
            i64::from(res.reserved),
            clamp(res.counts.current.total),
            clamp(res.counts.current.retries),
            clamp(res.counts.previous.total),
            clamp(res.counts.previous.retries),
        ],
        None => vec![-1, 0, 0, 0, 0],
    };
    if call.health.is_some() {
        n.push(r.granted.map_or(-1, i64::from));
        let v = r.view.unwrap_or_default();
        n.extend([v.paused_until_ms, v.opened_at_ms, v.cooldown_ms, v.closed_at_ms, v.as_of_ms].map(clamp));
    }
    n
}

/// The call [`call_argv`] encoded, read back from `key` and `argv` (the
/// inverse of the encoder: `call_argv(&decode_argv(k, &call_argv(c, n,
/// s))?, n, s)` is the same argv). `endpoint_id` is not on the wire (the key
/// carries it): it comes back empty. Any other shape is an error naming the
/// argument, as the script would refuse it.
pub fn decode_argv(key: &str, argv: &[String]) -> Result<StoreCall, String> {
    if argv.len() != 8 && argv.len() != 18 {
        return Err(format!("{} arguments, not 8 or 18", argv.len()));
    }
    let at = |i: usize| argv[i].as_str();
    let int = |i: usize| at(i).parse::<u64>().map_err(|_| format!("argv[{}] `{}`: not a count", i + 1, at(i)));
    let float = |i: usize| match at(i).parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("argv[{}] `{}`: not a number", i + 1, at(i))),
    };
    let flag = |i: usize| match at(i) {
        "0" => Ok(false),
        "1" => Ok(true),
        other => Err(format!("argv[{}] `{other}`: not 0 or 1", i + 1)),
    };
    let op =
        OPS.into_iter().find(|op| op_name(*op) == at(0)).ok_or_else(|| format!("argv[1] `{}`: no such op", at(0)))?;
    let budget = Budget { ratio: float(4)?, window_ms: int(2)?, min_sample: int(5)?, sliding: flag(6)? };
    flag(7)?;
    let health = if argv.len() == 18 {
        let outcome = HealthOutcome::parse(at(8)).ok_or_else(|| format!("argv[9] `{}`: no such outcome", at(8)))?;
        let circuit = match flag(11)? {
            false => None,
            true => Some(Circuit {
                failure_ratio: float(12)?,
                min_sample: int(13)?,
                cooldown_ms: int(14)?,
                cooldown_max_ms: int(15)?,
                probes: u32::try_from(int(16)?).map_err(|_| String::from("argv[17]: too many probes"))?,
                probe_interval_ms: int(17)?,
            }),
        };
        Some(HealthCall { outcome, pause_until_ms: int(9)?, probe: flag(10)?, circuit })
    } else {
        None
    };
    Ok(StoreCall { op, key: String::from(key), endpoint_id: String::new(), bucket: int(1)?, budget, health })
}

/// What one store holds per key, answered with the script's rule
/// ([`apply_call`]): the engine's in-memory store, and a store any number
/// of engines share (a simulated Redis). The clock-skew flag is not
/// judged: the caller's `now_ms` is the store's clock.
#[derive(Clone, Debug, Default)]
pub struct SharedStore {
    held: BTreeMap<String, HeldHealth>,
    /// Keys kept at most (one per endpoint and budget width); past it the
    /// smallest key is dropped, its counts starting again from zero.
    max_keys: usize,
}

/// The engine's own store (`memory_store`) is the same type.
pub(crate) type MemoryStore = SharedStore;

impl SharedStore {
    /// A store keeping at most `max_keys` keys (at least 1).
    pub fn new(max_keys: usize) -> Self {
        SharedStore { held: BTreeMap::new(), max_keys: max_keys.max(1) }
    }

    /// Answer `call` at `now_ms` as the script's integers (an invalid call: failed).
    pub fn answer(&mut self, call: &StoreCall, now_ms: u64) -> Option<Vec<i64>> {
        let held = self.held.get(&call.key).copied().unwrap_or_default();
        let (reply, next) = apply_call(call, now_ms, &held).ok()?;
        if !self.held.contains_key(&call.key) && self.held.len() >= self.max_keys {
            self.held.pop_first();
        }
        self.held.insert(call.key.clone(), next);
        Some(reply_ints(call, &reply))
    }

    /// Answer a [`super::Output::StoreCall`] as it went on the wire (`key`,
    /// `argv`) at the store's `now_ms`: none when the argv is not one
    /// [`call_argv`] writes or the call is invalid (the engine's `failed`).
    pub fn answer_wire(&mut self, key: &str, argv: &[String], now_ms: u64) -> Option<Vec<i64>> {
        self.answer(&decode_argv(key, argv).ok()?, now_ms)
    }
}
