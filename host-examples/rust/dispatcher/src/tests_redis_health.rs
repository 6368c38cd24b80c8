//! The Redis store's health calls against a real `redis-server` on
//! loopback (as the other Redis tests): 18 arguments, the 11-integer reply
//! read by the engine's reader as a `call-reply`, one script command per
//! call, and the same answers as policy-core's `apply_call` (the rule the
//! engine's in-memory store runs inside the component) over a sequence that
//! opens the circuit, refuses and grants probes, and closes it.

use std::time::Duration;

use retry_policy_core::compiled::{apply_call, CallOp, CompiledPolicy, HealthCall, StoreCall};
use retry_policy_core::health::{Circuit, Health, HealthOutcome};
use retry_policy_core::{Backoff, Budget, Jitter, Policy};

use retry_policy_core::engine::{call_argv, parse_reply};
use retry_policy_core::health::HeldHealth;

use crate::redis_store::RedisStore;
use crate::tests_redis::script_commands;
use crate::tests_redis_server::RedisServer;
use retry_policy_host::tls::TrustRoots;

fn policy() -> (Policy, Health) {
    let budget = Budget { ratio: 0.5, window_ms: 10_000, min_sample: 100, sliding: true };
    let backoff = Backoff { base_ms: 100, factor: 2.0, cap_ms: 1000, jitter: Jitter::None };
    let circuit = Circuit {
        failure_ratio: 0.5,
        min_sample: 3,
        cooldown_ms: 1000,
        cooldown_max_ms: 4000,
        probes: 1,
        probe_interval_ms: 500,
    };
    (Policy { backoff, window_ms: 60_000, hard_cap: 8, budget }, Health { circuit: Some(circuit), ..Health::default() })
}

#[test]
fn the_redis_stores_health_call_sends_18_arguments_and_reads_the_11_integer_reply_as_apply_call_does() {
    let Some(server) = RedisServer::start("health", &[], None) else { return };
    let url = format!("redis://127.0.0.1:{}/0", server.port);
    let redis = RedisStore::new(&url, Duration::from_millis(2000), &TrustRoots::only(vec![])).unwrap();
    let mut held = HeldHealth::default();
    let mut local = |c: &StoreCall, now: u64| {
        let (reply, next) = apply_call(c, now, &held).unwrap();
        held = next;
        reply
    };
    let call_redis = |c: &StoreCall, now: u64| {
        let ints = redis.call_ints(&c.key, &call_argv(c, now, false))?;
        parse_reply(c, &ints).map_err(|e| crate::redis_error::RedisError::Protocol(e.to_string()))
    };
    let (p, h) = policy();
    let compiled = CompiledPolicy::new(p, Some(h)).unwrap();
    let t0 = 1_796_180_000_000u64;
    let base = compiled.call_for(CallOp::Probe, "ep-h", t0).unwrap();
    let hc = base.health.expect("a health call carries its fields");
    let call = |op, outcome, probe, pause_until_ms| StoreCall {
        op,
        health: Some(HealthCall { outcome, pause_until_ms, probe, ..hc }),
        ..base.clone()
    };
    let f = HealthOutcome::Failure;
    let steps = [
        (t0, call(CallOp::Record, f, false, 0)),
        (t0 + 10, call(CallOp::RecordReserve, f, false, t0 + 5_000)),
        (t0 + 20, call(CallOp::RecordReserve, f, false, 0)), // opens
        (t0 + 30, call(CallOp::Probe, HealthOutcome::None, false, 0)), // in the cooldown: refused
        (t0 + 1_100, call(CallOp::Probe, HealthOutcome::None, false, 0)), // granted
        (t0 + 1_200, call(CallOp::Probe, HealthOutcome::None, false, 0)), // same window: refused
        (t0 + 1_300, call(CallOp::Report, HealthOutcome::Success, true, 0)), // the probe closes it
        (t0 + 1_400, call(CallOp::Reserve, HealthOutcome::None, false, 0)),
    ];
    let mut admin = server.admin();
    let before = script_commands(&mut admin);
    let mut granted = Vec::new();
    for (i, (now, c)) in steps.iter().enumerate() {
        assert_eq!(call_argv(c, *now, false).len(), 18);
        let got = call_redis(c, *now).unwrap_or_else(|e| panic!("step {i}: {e}"));
        let want = local(c, *now);
        assert_eq!(got, want, "step {i} ({:?})", c.op);
        granted.push(got.granted);
    }
    let after = script_commands(&mut admin);
    assert_eq!((after.0 + after.1) - (before.0 + before.1), steps.len() as u64, "one script command per call");
    assert_eq!(&granted[3..6], [Some(false), Some(true), Some(false)]);
    let closed = call_redis(&steps[7].1, t0 + 1_500).unwrap().view.unwrap();
    assert_eq!((closed.opened_at_ms, closed.closed_at_ms), (0, t0 + 1_300), "the probe's success closed the circuit");
    let opened = local(&steps[0].1, t0 + 1_600).view.unwrap();
    assert_eq!(opened.paused_until_ms, t0 + 5_000, "the pause stays");
}
