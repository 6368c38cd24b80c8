//! ABI 0.3's rows: the default typed step, now on a compiled handle
//! (`PolicyInstance::step_via`: `advance`, the store, `finish` only when
//! the budget must answer), beside 0.2's step it replaced (`evaluate`, the
//! store, `settle`), measured in the same run on the same instance and
//! inputs, the store answered by the same pure stand-in.

use std::hint::black_box;

use retry_policy_core::*;
use retry_policy_host::{HostError, PolicyInstance, StepOutcome, StepResult};

/// Interleaved rounds per row.
const ROUNDS: u32 = 5;

type Case = (DeliveryState, AttemptOutcome, BudgetCounts);

fn reservation(policy: &Policy, now: u64, c: &BudgetCounts) -> Reservation {
    Reservation { reserved: policy.budget.allows_retry(now, c), counts: *c }
}

/// Prints the rows; `time_ns` is the bench's timer, `old` is `(name, ns)` of
/// the row the ratios are against.
pub fn rows(
    inst: &mut PolicyInstance,
    policy: &Policy,
    cases: &[Case],
    now: u64,
    iters: u32,
    time_ns: impl Fn(u32, &mut dyn FnMut(u32)) -> f64,
) -> Result<(), Box<dyn std::error::Error>> {
    // Same decisions on both paths, or the ratio means nothing; count the
    // steps that needed the store's answer (two component calls).
    let mut two_calls = 0;
    for (s, o, c) in cases {
        let new = inst.step_via(policy, s, o, now, |_, _| Ok(reservation(policy, now, c)))?;
        let old = old_step(inst, policy, s, o, now, c)?;
        assert_eq!(new, old);
        two_calls += usize::from(new.store.as_ref().is_some_and(|r| r.op != StoreOp::Record));
    }
    // Interleaved rounds, best of each: a busy shared box moves single runs by 2x.
    let held = inst.compile(policy, None)?;
    let (mut old_ns, mut new_ns, mut handle_ns) = (f64::MAX, f64::MAX, f64::MAX);
    let (mut evaluate_ns, mut advance_ns) = (f64::MAX, f64::MAX);
    for _ in 0..ROUNDS {
        evaluate_ns = evaluate_ns.min(time_ns(iters / ROUNDS, &mut |i| {
            let (s, o, _) = &cases[i as usize % cases.len()];
            black_box(inst.evaluate(black_box(policy), s, o, now).ok());
        }));
        advance_ns = advance_ns.min(time_ns(iters / ROUNDS, &mut |i| {
            let (s, o, _) = &cases[i as usize % cases.len()];
            black_box(inst.advance(&held, black_box(s), o, false, now).ok());
        }));
        old_ns = old_ns.min(time_ns(iters / ROUNDS, &mut |i| {
            let (s, o, c) = &cases[i as usize % cases.len()];
            black_box(old_step(inst, black_box(policy), s, o, now, c).ok());
        }));
        new_ns = new_ns.min(time_ns(iters / ROUNDS, &mut |i| {
            let (s, o, c) = &cases[i as usize % cases.len()];
            black_box(inst.step_via(black_box(policy), s, o, now, |_, _| Ok(reservation(policy, now, c))).ok());
        }));
        handle_ns = handle_ns.min(time_ns(iters / ROUNDS, &mut |i| {
            let (s, o, c) = &cases[i as usize % cases.len()];
            if let Ok(StepResult::NeedsStore(_)) = inst.advance(&held, black_box(s), o, false, now) {
                let r = StoreReply::Answered(reservation(policy, now, c));
                black_box(inst.finish(&held, s, o, now, &r).ok());
            }
        }));
    }
    held.close(inst)?;
    println!();
    println!(
        "the default typed step, ABI 0.2 vs 0.3 ({} of {} inputs need the store's answer), one run, best of {ROUNDS} interleaved rounds",
        two_calls,
        cases.len()
    );
    println!("{:<64} {:>10} {:>10}", "path", "ns", "vs 0.2");
    let row = |name: &str, ns: f64| println!("{:<64} {:>10.0} {:>9.2}x", name, ns, ns / old_ns);
    row("0.2 step: evaluate + store + settle (policy lowered each call)", old_ns);
    row("0.3 step: advance [+ store + finish] on the cached handle", new_ns);
    row("0.3 advance [+ finish] on a held CompiledPolicy (no cache lookup)", handle_ns);
    println!("{:<64} {:>10.0} {:>10}", "  0.2 evaluate alone (the first call)", evaluate_ns, "");
    println!("{:<64} {:>10.0} {:>9.2}x", "  0.3 advance alone (the first call)", advance_ns, advance_ns / evaluate_ns);
    Ok(())
}

/// 0.2's default step, as `step_via` ran it before 0.3 (its code, with
/// the store call the same stand-in as the 0.3 row's).
fn old_step(
    inst: &mut PolicyInstance,
    policy: &Policy,
    s: &DeliveryState,
    o: &AttemptOutcome,
    now: u64,
    c: &BudgetCounts,
) -> Result<StepOutcome, HostError> {
    let evaluated = inst.evaluate(policy, s, o, now)?;
    let reply = match &evaluated.store {
        Some(_) => StoreReply::Answered(reservation(policy, now, c)),
        None => StoreReply::Unavailable,
    };
    let (decision, budget_disagreement) = match evaluated.decision {
        Some(decision) => (decision, false),
        None => {
            let settled = inst.settle(policy, s, o, now, &reply)?;
            (settled.decision, settled.budget_disagreement)
        }
    };
    Ok(StepOutcome { decision, budget_disagreement, store: evaluated.store, store_error: None })
}
