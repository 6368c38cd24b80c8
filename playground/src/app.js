// The page: a document, its lint findings and schedule, and a storm whose
// charts redraw whenever a control changes.
(async function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const { lint, human, pct } = globalThis.PlaygroundLint;
  const { lineChart } = globalThis.PlaygroundCharts;
  const { simulate, DEAD } = globalThis.PlaygroundSim;
  const rp = await globalThis.loadRetryPolicy('vendor/retry_policy_bg.wasm');
  const backoff = { base_ms: 2000, factor: 2, cap_ms: 300000, jitter: 'full' };
  $('doc').value = JSON.stringify({
    version: 'design-note',
    classes: {
      notification: { window_ms: 900000, hard_cap: 16, backoff },
      provisioning: { window_ms: 7200000, hard_cap: 16, backoff },
      ledger: { window_ms: 86400000, hard_cap: 16, backoff },
    },
  }, null, 2);
  let lintResult = null;
  let runs = 0;

  function drawLint() {
    lintResult = lint(rp, $('doc').value, [{ key: 'ep', per_s: Number($('rate').value) || 1 }]);
    const ul = $('findings');
    ul.innerHTML = '';
    if (lintResult.unreadable) {
      ul.innerHTML = `<li class="error">unreadable: ${lintResult.unreadable}</li>`;
    }
    for (const f of lintResult.findings) {
      const li = document.createElement('li');
      li.className = f.severity;
      li.dataset.rule = f.rule;
      li.innerHTML = `<b>${f.severity}</b> <code></code> ${f.rule}: <span></span>`;
      li.querySelector('code').textContent = f.field;
      li.querySelector('span').textContent = f.message;
      ul.appendChild(li);
    }
    const count = (s) => lintResult.findings.filter((f) => f.severity === s).length;
    $('lint-summary').textContent = `${lintResult.classes.length} classes, ${count('error')} errors, ${count('warning')} warnings, ${count('info')} infos (rate of endpoint ep from the storm's rate/s)`;
    const sel = $('class');
    const keep = sel.value;
    sel.innerHTML = lintResult.classes.map((c) => `<option>${c}</option>`).join('');
    if (lintResult.classes.includes(keep)) sel.value = keep;
  }

  function classFacts() {
    return lintResult?.facts?.find((f) => f.name === $('class').value);
  }

  function drawSchedule() {
    const c = classFacts();
    if (!c) { $('schedule-chart').innerHTML = ''; return; }
    const unit = c.policy.window_ms >= 3 * 3600000 ? [3600000, 'h'] : c.policy.window_ms >= 180000 ? [60000, 'min'] : [1000, 's'];
    const pts = (v) => v.map((o, i) => [i + 1, o / unit[0]]);
    const top = Math.max(c.policy.window_ms, c.worst[c.worst.length - 1]) / unit[0] * 1.08;
    const n = c.plan.max_attempts;
    $('schedule-chart').innerHTML = lineChart({
      id: 'schedule-svg', title: `${c.name}: ${n} attempts, limited by ${c.plan.limited_by}`, xLabel: 'attempt', yLabel: `offset (${unit[1]})`,
      xMax: n + 1, yMax: top, yFormat: (v) => +v.toFixed(2),
      lines: [
        { name: 'expected', points: pts(c.plan.offsets_ms), dots: true },
        { name: 'worst case', points: pts(c.worst), dots: true },
        { name: 'window', points: [[0, c.policy.window_ms / unit[0]], [n + 1, c.policy.window_ms / unit[0]]], color: '#000', dash: true },
      ],
    });
    $('plan-line').textContent = `expected span ${human(c.plan.expected_span_ms)}, worst case ${human(c.plan.worst_case_span_ms)}, window ${human(c.policy.window_ms)}`;
  }

  function drawStorm() {
    const c = classFacts();
    if (!c) return;
    const policy = JSON.parse(JSON.stringify(c.policy));
    policy.budget.ratio = Number($('ratio').value);
    policy.budget.min_sample = Math.max(0, Math.round(Number($('min_sample').value)));
    policy.budget.sliding = $('sliding').checked;
    const t0 = performance.now();
    let r;
    try {
      r = simulate(rp, {
        policy, maxAttempts: c.plan.max_attempts, ratePerS: Math.max(0.01, Number($('rate').value)), durationS: 600,
        replicas: Math.max(1, Math.round(Number($('replicas').value))), scope: $('scope').value, pattern: $('pattern').value,
        seed: Math.round(Number($('seed').value)),
      });
    } catch (e) {
      $('stoporder').textContent = `refused: ${e.code ?? ''} ${e.field ?? ''} ${e.message}`;
      return;
    }
    const ms = performance.now() - t0;
    const t = r.totals;
    $('sum-events').textContent = t.events;
    $('sum-attempts').textContent = t.attempts;
    $('sum-retries').textContent = t.retries;
    $('sum-share').textContent = pct(t.attempts ? t.retries / t.attempts : 0);
    $('sum-delivered').textContent = t.delivered;
    for (const d of ['max_attempts_exhausted', 'retry_window_elapsed', 'retry_budget_exhausted']) $(`sum-${d}`).textContent = t.dead[d];
    $('sum-calls').textContent = t.calls;
    $('sum-ms').textContent = ms.toFixed(0);
    const letter = { max_attempts_exhausted: 'M', retry_budget_exhausted: 'B', retry_window_elapsed: 'W', budget_unavailable: 'U', terminal_response: 'T' };
    $('stoporder').textContent = t.firstStops.map((s) => letter[s]).join('') || '(none)';
    const secs = r.seconds;
    const xMax = Math.max(secs.length, 1);
    $('share-chart').innerHTML = lineChart({
      id: 'share-svg', title: `retry share per second vs the ratio (${policy.budget.sliding ? 'sliding' : 'fixed windows'}, ${$('scope').value} x${$('replicas').value})`,
      xLabel: 'virtual time (s)', yLabel: 'retry share', xMax, yMax: 1, yFormat: (v) => pct(v),
      lines: [
        { name: 'retry share', points: secs.map((s, i) => [i, s.attempts ? s.retries / s.attempts : 0]).filter((_, i) => secs[i].attempts > 0), width: 1 },
        { name: 'trailing 10 s', points: secs.map((_, i) => { let a = 0, b = 0; for (let k = Math.max(0, i - 9); k <= i; k++) { a += secs[k].attempts; b += secs[k].retries; } return [i, a ? b / a : 0]; }), width: 2, color: '#d55e00' },
        { name: `ratio ${policy.budget.ratio}`, points: [[0, policy.budget.ratio], [xMax, policy.budget.ratio]], color: '#000', dash: true },
      ],
    });
    const shown = DEAD.filter((d) => t.dead[d] > 0);
    const yMax = Math.max(1, ...secs.flatMap((s) => shown.map((d) => s.dead[d]))) * 1.1;
    $('stops-chart').innerHTML = lineChart({
      id: 'stops-svg', title: 'dead letters per second by stop reason', xLabel: 'virtual time (s)', yLabel: 'dead letters / s', xMax, yMax,
      yFormat: (v) => +v.toFixed(1),
      lines: shown.map((d) => ({ name: d, points: secs.map((s, i) => [i, s.dead[d]]), width: 1 })),
    });
    runs++;
    document.body.dataset.runs = String(runs);
  }

  let timer = null;
  const later = (f) => { clearTimeout(timer); timer = setTimeout(f, 120); };
  $('doc').addEventListener('input', () => later(() => { drawLint(); drawSchedule(); drawStorm(); }));
  $('class').addEventListener('change', () => { drawSchedule(); drawStorm(); });
  for (const id of ['pattern', 'rate', 'ratio', 'min_sample', 'sliding', 'replicas', 'scope', 'seed']) {
    $(id).addEventListener(id === 'pattern' || id === 'scope' || id === 'sliding' ? 'change' : 'input', () => later(() => {
      if (id === 'rate') drawLint();
      drawStorm();
    }));
  }
  drawLint();
  drawSchedule();
  drawStorm();
  document.body.dataset.ready = 'true';
})().catch((e) => {
  document.body.dataset.error = String(e && e.stack || e);
  console.error(e);
});
