// The dispatcher's metrics, exactly docs/metrics.md, on prom-client with a
// private Registry (no default metrics, no other webhook_* family). Every
// family, its help, label values and buckets come from the artifact's
// metrics schema (metricsSchema(), docs/metrics.md "The schema as data"),
// read once when Metrics is made: every family exists from the first scrape
// and every closed label set is created at 0. The families the schema marks
// moved_by "engine" move only by the engine's count and gauge actions (inc,
// gauge); the host's (the histograms, webhook_in_flight,
// webhook_policy_reloads_total, webhook_policy_info) by the host's code.
import http from 'node:http';
import { Registry, Counter, Gauge, Histogram } from 'prom-client';
import { metricsSchema } from '@webhook/retry-policy';

const INFO = 'webhook_policy_info';
const IN_FLIGHT = 'webhook_in_flight';

const key = (name, labels) => `${name}${JSON.stringify(Object.entries(labels).sort())}`;

/** Every combination of the closed values of `labels` (none when a label is open, or there is no label). */
function closedSets(labels) {
  let sets = labels.length === 0 ? [] : [{}];
  for (const l of labels) {
    if (l.values === null) return [];
    sets = sets.flatMap((set) => l.values.map((v) => ({ ...set, [l.name]: v })));
  }
  return sets;
}

/** Whether `labels` are exactly `family`'s label names, each closed one with one of its values. */
function inSchema(family, labels) {
  const names = Object.keys(labels);
  return names.length === family.labels.length
    && family.labels.every((l) => names.includes(l.name) && (l.values === null || l.values.includes(labels[l.name])));
}

export class Metrics {
  /** The private prom-client registry (only the schema's families). */
  registry = new Registry();
  #byName = new Map(); // name -> {family, metric}
  #counts = new Map(); // counter values, for the run's summary (read synchronously)
  #unknown = new Set(); // series outside the schema, said once each
  #info = () => [];

  /** `families`: the schema to register (default: the current artifact's, metricsSchema()). */
  constructor(families = metricsSchema()) {
    const metrics = this;
    const make = { counter: Counter, gauge: Gauge, histogram: Histogram };
    for (const family of families) {
      const spec = { name: family.name, help: family.help, labelNames: family.labels.map((l) => l.name), registers: [this.registry] };
      if (family.type === 'histogram') spec.buckets = [...family.buckets_s];
      if (family.name === INFO) {
        spec.collect = function collect() {
          this.reset(); // a swapped-out artifact's series disappears
          for (const { labels, value } of metrics.#info()) this.set(labels, value);
        };
      }
      const metric = new make[family.type](spec);
      for (const labels of closedSets(family.labels)) {
        if (family.type === 'counter') metric.inc(labels, 0);
        else if (family.type === 'gauge') metric.set(labels, 0);
      }
      this.#byName.set(family.name, { family, metric });
    }
  }

  /**
   * Family `name`'s prom-client metric when the schema lists it as a `type`
   * (moved by `mover` when given) with `labels`; else said once on stderr: undefined.
   */
  #series(name, type, labels, mover = null) {
    const entry = this.#byName.get(name);
    const f = entry?.family;
    if (f !== undefined && f.type === type && (mover === null || f.moved_by === mover) && inSchema(f, labels)) return entry.metric;
    const k = key(name, labels);
    if (!this.#unknown.has(k)) {
      this.#unknown.add(k);
      const as = mover === null ? '' : `, as moved by the ${mover},`;
      process.stderr.write(`metrics: ${type} ${name} ${JSON.stringify(labels)} is not in the artifact's metrics schema${as} (docs/metrics.md): ignored\n`);
    }
    return undefined;
  }

  /**
   * Add 1 (or `by`) to counter `name` with `labels`. A name or label value
   * the schema does not list (an artifact of another release, e.g. a
   * rollback, moving a counter this one does not know) is said once on
   * stderr and ignored: never a new series, never a crash of the dispatcher.
   */
  inc(name, labels = {}, by = 1) {
    const counter = this.#series(name, 'counter', labels);
    if (counter === undefined) return;
    counter.inc(labels, by);
    const k = key(name, labels);
    this.#counts.set(k, (this.#counts.get(k) ?? 0) + by);
  }

  /** The closed values of family `name`'s (first) label, in the schema's order ([] when it has none). */
  labelValues(name) {
    return this.#byName.get(name)?.family.labels[0]?.values ?? [];
  }

  /** Counter `name` with exactly `labels` (this process's count). */
  get(name, labels = {}) {
    return this.#counts.get(key(name, labels)) ?? 0;
  }

  /** The sum of counter `name` over all its label values. */
  total(name) {
    let sum = 0;
    for (const [k, v] of this.#counts) if (k.startsWith(`${name}[`)) sum += v;
    return sum;
  }

  /** Record one duration in seconds in histogram `name`. */
  time(name, seconds) {
    this.#series(name, 'histogram', {})?.observe(seconds);
  }

  /** One more (+1) or one fewer (-1) HTTP attempt in progress. */
  inFlight(delta) {
    this.#series(IN_FLIGHT, 'gauge', {})?.inc(delta);
  }

  /** Set gauge `name` (the engine's webhook_held_events) to `value`; one the schema does not list: said once, ignored. */
  gauge(name, value) {
    this.#series(name, 'gauge', {}, 'engine')?.set(value);
  }

  /** webhook_policy_info's series, read at every scrape: `read()` -> [{labels, value}]. */
  policyInfo(read) {
    this.#info = read;
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  render() {
    return this.registry.metrics();
  }
}

/**
 * Serve `metrics` on GET /metrics at {port (0: any free one), host}. Bound to
 * loopback by default (counters name endpoints and failure rates: not for
 * the internet); `host` widens it only when asked.
 */
export async function serveMetrics(metrics, { port = 0, host = '127.0.0.1' } = {}) {
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics') return res.writeHead(404).end();
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (e) => res.writeHead(500).end(String(e?.message ?? e)),
    );
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const { address } = server.address();
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${server.address().port}/metrics`,
    close: () => new Promise((r) => {
      server.closeAllConnections?.();
      server.close(r);
    }),
  };
}
