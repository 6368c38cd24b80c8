// The lint rule table of tools/policy-tools (src/lint), ported to JS so it
// runs in the page: every number comes from the npm package's wasm (plan,
// delay, budgetAllows, document validation); this file only compares them.
// test/lint-parity.test.mjs checks it finds exactly what `retry-policy lint`
// (the component) finds, rule by rule and field by field.
(function (root) {
  'use strict';
  const MAX_HARD_CAP = 100;
  const LIMIT = 200000;

  function human(ms) {
    const s = Math.floor(ms / 1000);
    const frac = ms % 1000;
    const p2 = (n) => String(n).padStart(2, '0');
    let base;
    if (s >= 3600) base = `${Math.floor(s / 3600)}h${p2(Math.floor((s % 3600) / 60))}m${p2(s % 60)}s`;
    else if (s >= 60) base = `${Math.floor(s / 60)}m${p2(s % 60)}s`;
    else base = `${s}s`;
    return frac === 0 ? base : `${base}+${frac}ms`;
  }
  const pct = (x) => `${(x * 100).toFixed(1)}%`;

  function finding(severity, rule, field, message, numbers = {}) {
    return { severity, rule, field, message, numbers };
  }

  /** Plan, ceilings and worst-case offsets of one class, from the wasm. */
  function facts(rp, name, policy) {
    const plan = rp.plan(policy.backoff, policy.window_ms, policy.hard_cap);
    const none = { ...policy.backoff, jitter: 'none' };
    const n = Math.min(plan.max_attempts, MAX_HARD_CAP);
    const ceilings = [];
    for (let i = 0; i < n; i++) ceilings.push(rp.delay(none, '', i));
    const worst = [0];
    for (let i = 0; i < plan.max_attempts - 1; i++) worst.push(worst[worst.length - 1] + ceilings[i]);
    return { name, policy, plan, ceilings, worst, field: (rest) => `classes.${name}.${rest}` };
  }

  function scheduleRules(rp, c) {
    const out = [];
    const { policy: p, plan } = c;
    const w = p.window_ms;
    if (plan.limited_by === 'hard_cap') {
      const free = rp.plan(p.backoff, w, MAX_HARD_CAP);
      const needed = free.limited_by === 'window'
        ? `raise hard_cap to ${free.max_attempts} (the window's own count)`
        : `even hard_cap ${MAX_HARD_CAP} cannot fill it: raise cap_ms`;
      out.push(finding('error', 'hard_cap_cuts_schedule', c.field('hard_cap'),
        `limited_by = hard_cap: ${plan.max_attempts} attempts, the last expected at ${human(plan.expected_span_ms)} of a ${human(w)} window (${pct(plan.expected_span_ms / Math.max(w, 1))}); ${needed}, or shorten window_ms`,
        { hard_cap: p.hard_cap, max_attempts: plan.max_attempts, expected_span_ms: plan.expected_span_ms, window_ms: w,
          max_attempts_at_hard_cap_100: free.max_attempts }));
    }
    const first = c.ceilings[0] ?? 0;
    if (plan.max_attempts === 1) {
      out.push(finding('error', 'first_retry_misses_window', c.field('window_ms'),
        `no retry fits: the first retry's ceiling ${human(first)} is past the ${human(w)} window`, { first_retry_ceiling_ms: first, window_ms: w }));
    } else if (first > w) {
      out.push(finding('warning', 'first_retry_misses_window', c.field('backoff.base_ms'),
        `the first retry's ceiling ${human(first)} is past the ${human(w)} window`, { first_retry_ceiling_ms: first, window_ms: w }));
    }
    if (p.backoff.cap_ms > w) {
      out.push(finding('warning', 'cap_longer_than_window', c.field('backoff.cap_ms'),
        `cap_ms ${human(p.backoff.cap_ms)} is longer than the ${human(w)} window: it caps nothing`, { cap_ms: p.backoff.cap_ms, window_ms: w }));
    }
    if (plan.worst_case_span_ms > w) {
      const reachable = c.worst.filter((o) => o <= w).length;
      const times = plan.worst_case_span_ms / Math.max(w, 1);
      out.push(finding(times > 1.5 ? 'warning' : 'info', 'worst_case_beyond_window', c.field('backoff'),
        `worst-case span ${human(plan.worst_case_span_ms)} is ${times.toFixed(2)}x the ${human(w)} window: unlucky events stop retry_window_elapsed after ${reachable} of ${plan.max_attempts} attempts`,
        { worst_case_span_ms: plan.worst_case_span_ms, window_ms: w, attempts_reachable_in_worst_case: reachable }));
    }
    if (p.budget.window_ms > w) {
      out.push(finding('warning', 'budget_window_longer_than_class', c.field('budget.window_ms'),
        `the budget's ${human(p.budget.window_ms)} buckets outlive the class's ${human(w)} window`, { budget_window_ms: p.budget.window_ms, window_ms: w }));
    }
    if (!p.budget.sliding) {
      out.push(finding('warning', 'fixed_window_sawtooth', c.field('budget.sliding'),
        `sliding = false: the counts reset at every ${human(p.budget.window_ms)} rollover, a fresh ${pct(p.budget.ratio)} allowance each bucket (sawtooth)`,
        { budget_window_ms: p.budget.window_ms, ratio: p.budget.ratio }));
    }
    return out;
  }

  function budgetRules(rp, c, rates, classNames) {
    const out = [];
    const b = c.policy.budget;
    const allows = (total, retries) =>
      rp.budgetAllows(b, 0, { current: { total, retries }, previous: { total: 0, retries: 0 } });
    const field = c.field('budget.min_sample');
    if (!allows(b.min_sample, 0)) {
      let t = b.min_sample;
      while (t < LIMIT && !allows(t, 0)) t++;
      out.push(finding('warning', 'min_sample_no_retry_at_floor', field,
        `at the sample floor no retry fits: ratio ${b.ratio} needs ${t} attempts in a window before one retry; raise min_sample to at least ${t}`,
        { min_sample: b.min_sample, ratio: b.ratio, first_total_allowing_a_retry: t }));
    }
    for (const rate of rates) {
      if (!(rate.key === c.name || !classNames.includes(rate.key))) continue;
      const who = rate.key === c.name ? `class ${c.name}` : `endpoint ${rate.key}`;
      const first = Math.round((rate.per_s * b.window_ms) / 1000);
      const stormCap = Math.min(first * Math.max(c.plan.max_attempts - 1, 0), LIMIT);
      let k = 0;
      while (k < stormCap + 1 && allows(first + k, k)) k++;
      const nums = { rate_per_s: rate.per_s, first_attempts_per_window: first, min_sample: b.min_sample, retries_allowed_per_window: k };
      const head = `${who} at ${rate.per_s}/s sends ${first} first attempts per ${human(b.window_ms)} window`;
      if (first >= b.min_sample && k === 0) {
        out.push(finding('error', 'min_sample_too_low', field, `${head}: no retry fits, its first failure stops retry_budget_exhausted; raise min_sample above ${first}`, nums));
      } else if (first >= b.min_sample && k < 3) {
        out.push(finding('warning', 'min_sample_too_low', field, `${head}: only ${k} retries per window fit; raise min_sample above ${first}`, nums));
      } else if (k > stormCap) {
        out.push(finding('warning', 'min_sample_too_high', field, `${head}: even a full storm stays under min_sample ${b.min_sample}: the budget never engages`, nums));
      } else if (k / Math.max(first + k, 1) > 2 * b.ratio) {
        out.push(finding('warning', 'min_sample_too_high', field, `${head}: the budget engages only at ${pct(k / (first + k))} retries, not ${pct(b.ratio)}`, nums));
      }
    }
    return out;
  }

  function refusal(e, within) {
    const detail = e.detail ?? e.message;
    const rule = /unknown field/.test(detail) ? 'unknown_key'
      : /defined twice|duplicate key/.test(detail) ? 'duplicate_key' : (e.code ?? 'invalid_document');
    return finding('error', rule, e.field || within, `${e.code}: ${detail}`);
  }

  const ORDER = { error: 0, warning: 1, info: 2 };

  /**
   * Lint JSON text. Returns {classes, findings, unreadable?}.
   * rates: [{key, per_s}]
   */
  function lint(rp, text, rates = []) {
    let tree;
    try {
      tree = JSON.parse(text);
    } catch (e) {
      return { classes: [], findings: [], unreadable: String(e.message) };
    }
    const findings = [];
    let good = [];
    const names = tree && typeof tree.classes === 'object' && tree.classes ? Object.keys(tree.classes) : [];
    try {
      const doc = new rp.RetryPolicy(text);
      good = doc.classes.map((n) => [n, doc.policy(n).toJSON()]);
    } catch (whole) {
      let placed = false;
      for (const n of names) {
        try {
          const one = new rp.RetryPolicy({ classes: { [n]: tree.classes[n] } });
          good.push([n, one.policy(n).toJSON()]);
        } catch (e) {
          const f = refusal(e, `classes.${n}`);
          placed = placed || f.field === whole.field;
          findings.push(f);
        }
      }
      if (!placed) findings.unshift(refusal(whole, ''));
    }
    for (const [n, policy] of good) {
      const c = facts(rp, n, policy);
      findings.push(...scheduleRules(rp, c), ...budgetRules(rp, c, rates, names));
    }
    const sorted = findings.map((f, i) => [f, i]).sort((a, b) => ORDER[a[0].severity] - ORDER[b[0].severity] || a[1] - b[1]).map((x) => x[0]);
    return { classes: good.map((g) => g[0]), findings: sorted, facts: good.map(([n, p]) => facts(rp, n, p)) };
  }

  root.PlaygroundLint = { lint, facts, human, pct };
})(globalThis);
