// Format 3 in the page: the document's `health` sections diffed against the
// design note (format 2), and the comparison `retry-policy simulate
// --compare-health` runs (format 2 vs the same document with `health`; a
// default section in every class when it has none): its table rows for the
// endpoint, its chart (requests/s and events held, both runs) and issue 19's
// goal lines. Every number and the chart come from the tools export.

const $ = (id) => document.getElementById(id);

/** The design note without health: the diff's baseline and the page's first document. */
export const BASE = (backoff) => ({
  version: 'design-note',
  classes: {
    notification: { window_ms: 900000, hard_cap: 16, backoff },
    provisioning: { window_ms: 7200000, hard_cap: 16, backoff },
    ledger: { window_ms: 86400000, hard_cap: 16, backoff },
  },
});

/** The same document with a document-wide `health` section (format 3) and the ledger opting out. */
export function withHealth(doc) {
  const d = structuredClone(doc);
  d.health = { release: { multiple: 3, floor_per_s: 1 }, pause: { max_ms: 600000 } };
  d.classes.ledger.health = null;
  return d;
}

/** `diff` of the design note (format 2) against the document: the text, and the changes count. */
export function drawDiff(tools, base, text) {
  let out;
  try {
    const rows = tools.diff(base, text, { oldPath: 'design-note.json', newPath: 'playground.json' });
    out = tools.diff(base, text, { oldPath: 'design-note.json', newPath: 'playground.json', format: 'text' });
    $('diff').dataset.changes = String(rows.reduce((n, c) => n + c.changes.length, 0));
    $('diff').dataset.health = String(rows.reduce((n, c) => n + c.changes.filter((x) => x.field.startsWith('health')).length, 0));
  } catch (e) {
    out = `refused: ${e.code ?? ''} ${e.message}`;
    $('diff').dataset.changes = '';
  }
  $('diff').textContent = out;
}

const ROWS = ['delivered', 'requests during its outage', 'outage arrivals delivered', 'events held; mean held time of held dead letters', 'post-recovery rate, max 10 s (x normal)'];

/** Run the comparison on `policy` (text) and `scenario` (object, no variants); draw it, `note` first. */
export function drawCompare(tools, policy, scenario, seed, note = '') {
  const t0 = performance.now();
  let r;
  try {
    r = tools.compareHealth(policy, JSON.stringify(scenario), { policyPath: 'playground.json', seed, charts: true });
  } catch (e) {
    $('compare-status').textContent = `refused: ${e.code ?? ''} ${e.message}`;
    return null;
  }
  const ep = r.endpoints[0];
  const body = $('compare-rows');
  body.innerHTML = '';
  for (const row of ep.rows.filter((x) => ROWS.includes(x.figure) || x.figure.startsWith('requests to'))) {
    const tr = document.createElement('tr');
    for (const v of [row.figure, row.format2, row.health, row.ratio]) {
      const td = document.createElement('td');
      td.textContent = v;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  const ul = $('goals');
  ul.innerHTML = '';
  for (const g of r.goals) {
    const li = document.createElement('li');
    li.className = g.met ? 'met' : 'not-met';
    li.textContent = `[${g.met ? 'met' : 'NOT met'}] ${g.endpoint}: ${g.text}`;
    ul.appendChild(li);
  }
  $('health-chart').innerHTML = r.charts[`${scenario.name}-health.svg`];
  const calls = (c) => c.attempt_calls + c.probe_calls;
  $('compare-status').textContent = `${note}${r.health_source}; store calls: format 2 ${calls(r.calls.format2)}, health ${calls(r.calls.health)} (${r.calls.health.probe_calls} probe); ${(performance.now() - t0).toFixed(0)} ms`;
  document.body.dataset.compares = String(Number(document.body.dataset.compares ?? 0) + 1);
  return r;
}
