// The send loop of a class with `health` (docs/health-dispatch.md section 2):
// at each due instant, gate (probe when it asks, at most one probe call per
// replica, endpoint and probe window), the wake's `reserve` of a
// budget-held event, send, then advance / finish with the probe flag. A
// hold is journaled (status "held") before it is acknowledged, and is due
// again at its `held_until_ms`. Every rule is the component's (gate,
// after-probe, call-for, settle-wake, advance, finish, normal-per-s); this
// file moves values, keeps the per-endpoint table (endpoint-table.mjs) and
// the record. A class without `health` makes no gate call and never holds:
// advance, at most one store call, finish, as format 2.
import { pendingResult } from './dispatcher.mjs';
import { bare } from './health-policy.mjs';

const UNAVAILABLE = Object.freeze({ unavailable: true });

/** The last outcome as a journal writes it: the status code ("503") or the transport kind. */
const outcomeText = (outcome) => (outcome.error_kind !== undefined ? outcome.error_kind : String(outcome.status));

/**
 * Run one event to its end (delivered, dead-lettered) or to a drain (pending).
 * `host`: {policy: HealthPolicy, table: EndpointTable, metrics, persist(rec),
 *   sleep(ms), draining, attempt(event, state, stepView, rec), finish(event,
 *   decision, outcome, rec, heldMs), refresh(endpointId)};
 * `rec`: the event's journal record (format 2), kept up to date whether or
 * not a journal is written; `state`: its delivery state; `dueAtMs`: when a
 * resumed record is due (its held_until_ms or next_attempt_at_ms).
 */
export async function runHealth(host, { event, state, compiled, rec, dueAtMs = 0 }) {
  const { policy, table, metrics } = host;
  const clock = policy.clock;
  const health = compiled.health;
  const budget = compiled.toJSON().budget;
  const step = policy.stepView(compiled);
  const ep = state.endpoint_id;
  const deadlineMs = rec.deadline_ms;
  let countedHeld = false;
  if (rec.status === 'held') {
    metrics.held(1); // journaled as held: held now, in this process too
    countedHeld = true;
  }
  // A replay not yet attempted meets its first gate as held (it spends a release token).
  let leaving = rec.status === 'held' || (rec.replay_of !== null && rec.attempts === 0);
  const waitMs = dueAtMs - clock.nowMs(); // a resumed record waits for its instant
  if (waitMs > 0 && !host.draining) await host.sleep(waitMs);

  const call = async (storeCall, nowMs) => {
    const reply = await policy.call(storeCall, nowMs);
    if (reply !== null) table.keepView(ep, reply.view);
    return reply;
  };

  /** Hold until `untilMs` for `reason`: on disk first, then wait (a drain leaves it held: pending). */
  const hold = async (untilMs, reason) => {
    const now = clock.nowMs();
    Object.assign(rec, { status: 'held', held_until_ms: untilMs, hold_reason: reason, held_since_ms: now, next_attempt_at_ms: untilMs });
    metrics.inc('webhook_holds_total', { reason });
    if (!countedHeld) metrics.held(1);
    countedHeld = true;
    await host.persist(rec);
    if (host.draining) return false;
    if (untilMs > now) await host.sleep(untilMs - now);
    return !host.draining;
  };

  const gateEvent = (held) => ({ event_id: state.event_id, endpoint_id: ep, attempts: state.attempt, first_attempted_at_ms: state.first_attempted_at_ms, held, held_ms: rec.held_ms });

  for (;;) {
    if (host.draining) return pendingResult(state.attempt);
    let now = clock.nowMs();
    if (rec.status === 'held') {
      // Leaving the hold (whatever the gate says next): its span counts.
      rec.held_ms += Math.max(0, now - rec.held_since_ms);
      Object.assign(rec, { status: 'pending', held_since_ms: 0, held_until_ms: 0, hold_reason: null });
      if (countedHeld) metrics.held(-1);
      countedHeld = false;
    }
    let probe = false;
    if (health !== null) {
      const ev = gateEvent(leaving);
      const entry = table.entry(ep);
      const given = entry.view;
      let answer = compiled.gate(ev, given, table.pacerFor(ep, budget, now), now);
      table.keepPacer(ep, answer.pacer);
      if (answer.verdict.action === 'probe') answer = await probeFor(compiled, ev, given, entry, now);
      let v = answer.verdict;
      if (v.action === 'probe') v = { action: 'hold', until_ms: Math.min(now + health.circuit.probe_interval_ms, deadlineMs), reason: 'probe_refused' };
      if (v.action === 'stop') {
        const decision = { stop_reason: 'retry_window_elapsed', dead_letter: v.dead_letter, disable_endpoint: false, retry: null };
        return host.finish(event, decision, null, rec, v.held_ms);
      }
      if (v.action === 'hold') {
        if (!(await hold(v.until_ms, v.reason))) return pendingResult(state.attempt);
        leaving = true;
        continue;
      }
      probe = v.action === 'send_probe';
      if (rec.needs_reserve) {
        // A budget-held retry's wake: one `reserve` first.
        const reply = await call(compiled.callFor('reserve', ep, now), now);
        metrics.inc('webhook_wake_calls_total');
        const wake = { event_id: state.event_id, endpoint_id: ep, attempts: state.attempt, first_attempted_at_ms: state.first_attempted_at_ms, refusals: rec.wake_refusals };
        const w = compiled.settleWake(wake, reply?.reservation ?? UNAVAILABLE, now);
        if (w.action === 'hold') {
          rec.wake_refusals = w.refusals;
          if (!(await hold(w.until_ms, 'budget_refused'))) return pendingResult(state.attempt);
          leaving = true;
          continue;
        }
        if (w.action === 'stop') {
          const { action, ...deadLetter } = w;
          return host.finish(event, { stop_reason: deadLetter.stop_reason, dead_letter: deadLetter, disable_endpoint: false, retry: null }, null, rec, rec.held_ms);
        }
        rec.needs_reserve = false;
        rec.wake_refusals = 0;
        // The reserve's own reply gates the send once more (docs/health-dispatch.md step 3,
        // draft 3 item 2): a pause or an opening it shows holds the event, keeping the
        // reservation (no second `reserve` at the next wake). Not for the granted probe,
        // and `held` false: the release token was spent at step 2.
        if (!probe) {
          const again = compiled.gate(gateEvent(false), table.entry(ep).view, table.pacerFor(ep, budget, now), now);
          table.keepPacer(ep, again.pacer);
          if (again.verdict.action === 'hold') {
            if (!(await hold(again.verdict.until_ms, again.verdict.reason))) return pendingResult(state.attempt);
            leaving = true;
            continue;
          }
        }
      }
    }
    leaving = false;
    const closed = step.resume({ ...state }); // the window's edge, before connecting
    if (closed.due !== true) return host.finish(event, closed, null, rec, rec.held_ms);
    state.attempt += 1;
    const outcome = await host.attempt(event, state, step, rec);
    if (outcome.notSent) return host.finish(event, outcome.decision, null, rec, rec.held_ms);
    now = clock.nowMs();
    const verdict = await decide(compiled, state, outcome, probe, now);
    if (verdict.action === 'stop') return host.finish(event, verdict.decision, outcome, rec, rec.held_ms);
    Object.assign(rec, { attempts: state.attempt, last_outcome: outcomeText(outcome) });
    rec.credentials_refreshed ||= verdict.refresh_credentials;
    if (verdict.action === 'hold') {
      Object.assign(rec, { needs_reserve: true, wake_refusals: 0 });
      if (!(await hold(verdict.until_ms, 'budget_refused'))) return pendingResult(state.attempt);
      leaving = true;
    } else {
      rec.next_attempt_at_ms = now + verdict.delay_ms;
      await host.persist(rec); // the retry is scheduled once its record is on disk
      if (host.draining) return pendingResult(state.attempt);
      await host.sleep(verdict.delay_ms);
      if (host.draining) return pendingResult(state.attempt);
    }
    if (verdict.refresh_credentials) await host.refresh(ep);
    state.credentials_refreshed ||= verdict.refresh_credentials;
  }

  /** Gate 5: one probe call per replica, endpoint and probe window; the answer of after-probe. */
  async function probeFor(c, ev, given, entry, now) {
    let answer;
    if (entry.probing || now < entry.probeBusyUntilMs) {
      answer = c.afterProbe(ev, false, given, table.pacerFor(ep, budget, now), now); // no call: the window's probe is taken
    } else {
      entry.probing = true;
      let reply;
      try {
        reply = await call(c.callFor('probe', ep, now), now);
      } finally {
        entry.probing = false;
      }
      metrics.inc('webhook_probe_calls_total', { granted: reply === null ? 'error' : String(reply.granted === true) });
      const view = reply?.view ?? given;
      answer = c.afterProbe(ev, reply?.granted === true, view, table.pacerFor(ep, budget, now), now);
      if (reply !== null) {
        const busy = c.afterProbe(ev, false, reply.view, answer.pacer, now).verdict;
        entry.probeBusyUntilMs = busy.action === 'hold' ? busy.until_ms : 0;
      }
    }
    table.keepPacer(ep, answer.pacer);
    return answer;
  }

  /** advance, then (when it needs the store) one call and finish: {action: stop|retry|hold, ...}. */
  async function decide(c, s, outcome, probeSent, now) {
    const a = c.advance(bare(s), outcome, now, { probe: probeSent });
    if (a.action === 'decided') {
      if (a.call !== null) await call(a.call, now); // the decision stands whatever it answers (awaited, as format 2's step does)
      const d = a.decision;
      if (d.stop_reason !== null) return { action: 'stop', decision: d };
      return { action: 'retry', delay_ms: d.retry.delay_ms, refresh_credentials: d.retry.refresh_credentials };
    }
    const { action, ...storeCall } = a;
    const reply = await call(storeCall, now);
    const fin = c.finish(bare(s), outcome, now, reply?.reservation ?? UNAVAILABLE);
    if (fin.budget_disagreement) policy.budgetDisagreements += 1;
    const v = fin.verdict;
    if (v.action === 'stop') {
      const { action: _a, ...decision } = v;
      return { action: 'stop', decision };
    }
    return v;
  }
}
