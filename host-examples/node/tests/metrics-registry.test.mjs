// The dispatcher's prom-client registry is the artifact's metrics schema
// (docs/metrics.md "The schema as data"): the same families in the same
// order, each of its type, with its help, label names, closed label values
// (present at 0 from the start) and buckets; a series outside it is ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricsSchema } from '@webhook/retry-policy';
import { Metrics } from '../examples/dispatcher/metrics.mjs';

/** The registry's families in the schema's shape (a label's values: those it has series for, null when none). */
async function registered(metrics) {
  return (await metrics.registry.getMetricsAsJSON()).map((f) => {
    const metric = metrics.registry.getSingleMetric(f.name);
    const seen = (label) => [...new Set(f.values.map((v) => v.labels[label]).filter((v) => v !== undefined))];
    return {
      name: f.name,
      type: f.type,
      help: f.help,
      labels: metric.labelNames.map((name) => ({ name, values: seen(name).length ? seen(name).sort() : null })),
      buckets_s: f.type === 'histogram' ? [...metric.upperBounds] : [],
    };
  });
}

test("the registry's families are exactly the artifact's metrics schema, in its order", async () => {
  const schema = metricsSchema();
  assert.equal(schema.length, 17);
  const want = schema.map((f) => ({
    name: f.name,
    type: f.type,
    help: f.help,
    labels: f.labels.map((l) => ({ name: l.name, values: l.values === null ? null : [...l.values].sort() })),
    buckets_s: [...f.buckets_s],
  }));
  assert.deepEqual(await registered(new Metrics()), want);
});

test('a count outside the schema (an unknown label value or label name) is ignored: no new series, no throw', async () => {
  const m = new Metrics();
  m.inc('webhook_attempts_total', { kind: 'third' });
  m.inc('webhook_holds_total', { why: 'paused' });
  m.gauge('webhook_in_flight', 5); // a host family: not the engine's to set
  const text = await m.render();
  assert.doesNotMatch(text, /third|why=/);
  assert.match(text, /^webhook_in_flight 0$/m);
  assert.equal(m.get('webhook_attempts_total', { kind: 'third' }), 0);
});
