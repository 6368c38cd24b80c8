// The dispatcher's metrics, exactly docs/metrics.md (one schema for the
// four dispatchers; the families are the tables below), on prom-client with
// a private Registry (no default metrics, no other webhook_* family). Every
// family exists from the first scrape and every closed label set is created at 0.
import http from 'node:http';
import { Registry, Counter, Gauge, Histogram } from 'prom-client';
import { STOP_REASONS, TRANSPORT_KIND_NAMES } from '@webhook/retry-policy';

export const STORE_BUCKETS_SECONDS = Object.freeze([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]);
export const DELIVERY_BUCKETS_SECONDS = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
const DEAD_LETTER_REASONS = STOP_REASONS.filter((r) => r !== 'delivered');
/** Why an event is held (docs/health-dispatch.md section 3), the closed set of webhook_holds_total{reason}. */
export const HOLD_REASONS = Object.freeze(['paused', 'circuit_open', 'probe_refused', 'release_pacing', 'budget_refused']);

/** Counter families: help, label name and its closed set of values. */
const COUNTERS = {
  webhook_attempts_total: { help: 'Delivery attempts the policy allowed and the dispatcher started.', label: 'kind', values: ['first', 'retry'] },
  webhook_delivered_total: { help: 'Events delivered (a 2xx).' },
  webhook_deadletter_total: { help: 'Events dead-lettered, by the reason their retries stopped.', label: 'stop_reason', values: DEAD_LETTER_REASONS },
  webhook_transport_errors_total: { help: 'Attempts that ended without a response, by transport kind.', label: 'kind', values: TRANSPORT_KIND_NAMES },
  webhook_endpoint_disable_signals_total: { help: '410 Gone responses: the receiver asks to be disabled.' },
  webhook_budget_refusals_total: { help: 'Retries the fleet budget refused (the store answered reserved = false).' },
  webhook_budget_disagreements_total: { help: "Store replies whose verdict differs from the policy's rule on the same counts (the store's verdict stands)." },
  webhook_budget_store_errors_total: { help: 'Budget store calls that failed or timed out (those retries fail closed).' },
  webhook_policy_reloads_total: { help: 'Policy documents or artifacts loaded without a restart (refused: invalid, the old one kept).', label: 'result', values: ['applied', 'refused'] },
  webhook_holds_total: { help: 'Holds started (format 3): the event waits, spending no attempt.', label: 'reason', values: HOLD_REASONS },
  webhook_probe_calls_total: { help: 'Probe store calls made because the gate asked (an open circuit after its cooldown).', label: 'granted', values: ['true', 'false', 'error'] },
  webhook_replayed_total: { help: 'Dead letters replayed as new events.' },
};

const HISTOGRAMS = {
  webhook_budget_store_duration_seconds: { help: 'One budget store call, from the request to the reply or the error.', buckets: STORE_BUCKETS_SECONDS },
  webhook_delivery_duration_seconds: { help: 'One HTTP attempt, from the start of the connection to the end of the response body read, or to the transport error.', buckets: DELIVERY_BUCKETS_SECONDS },
};

const key = (name, labels) => `${name}${JSON.stringify(Object.entries(labels).sort())}`;

export class Metrics {
  /** The private prom-client registry (only the families above). */
  registry = new Registry();
  #counters = new Map();
  #histograms = new Map();
  #counts = new Map(); // counter values, for the run's summary (read synchronously)
  #unknown = new Set(); // engine names this host does not list, said once each
  #gauges = new Map();
  #info = () => [];

  constructor() {
    const metrics = this;
    for (const [name, spec] of Object.entries(COUNTERS)) {
      const counter = new Counter({
        name,
        help: spec.help,
        labelNames: spec.label ? [spec.label] : [],
        registers: [this.registry],
      });
      for (const value of spec.values ?? []) counter.inc({ [spec.label]: value }, 0);
      this.#counters.set(name, counter);
    }
    for (const [name, spec] of Object.entries(HISTOGRAMS)) {
      this.#histograms.set(name, new Histogram({ name, help: spec.help, buckets: [...spec.buckets], registers: [this.registry] }));
    }
    this.#gauges.set('webhook_in_flight', new Gauge({ name: 'webhook_in_flight', help: 'HTTP attempts in progress now.', registers: [this.registry] }));
    this.#gauges.set('webhook_held_events', new Gauge({ name: 'webhook_held_events', help: 'Events held now (journaled as held).', registers: [this.registry] }));
    new Gauge({ // eslint-disable-line no-new
      name: 'webhook_policy_info',
      help: 'The policy artifact this dispatcher runs and its current document version (value always 1).',
      labelNames: ['artifact_sha256', 'abi', 'document_version'],
      registers: [this.registry],
      collect() {
        this.reset(); // a swapped-out artifact's series disappears
        for (const { labels, value } of metrics.#info()) this.set(labels, value);
      },
    });
  }

  /**
   * Add 1 (or `by`) to counter `name` with `labels`. A name docs/metrics.md
   * does not list (an artifact of another release, e.g. a rollback, moving
   * a counter this host does not know) is said once on stderr and ignored:
   * never a crash of the dispatcher.
   */
  inc(name, labels = {}, by = 1) {
    const counter = this.#counters.get(name);
    if (counter === undefined) {
      if (!this.#unknown.has(name)) {
        this.#unknown.add(name);
        process.stderr.write(`metrics: the engine moved ${name}, a counter docs/metrics.md does not list: ignored\n`);
      }
      return;
    }
    counter.inc(labels, by);
    const k = key(name, labels);
    this.#counts.set(k, (this.#counts.get(k) ?? 0) + by);
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
    this.#histograms.get(name).observe(seconds);
  }

  /** One more (+1) or one fewer (-1) HTTP attempt in progress. */
  inFlight(delta) {
    this.#gauges.get('webhook_in_flight').inc(delta);
  }

  /** Set gauge `name` (the engine's webhook_held_events) to `value`. */
  gauge(name, value) {
    const g = this.#gauges.get(name);
    if (g === undefined) throw new TypeError(`no gauge ${name} in docs/metrics.md`);
    g.set(value);
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
