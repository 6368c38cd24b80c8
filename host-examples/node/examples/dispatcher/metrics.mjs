// A tiny Prometheus text exposition (no dependency): counters with labels.
//   webhook_deadletter_total{stop_reason="..."}  events dead-lettered, by reason
//   webhook_delivered_total                       events delivered
//   webhook_attempts_total                        HTTP attempts sent
//   webhook_destination_refused_total             attempts refused: internal target address
//   webhook_budget_disagreements_total            store verdicts that differed from the policy's rule
// and gauges whose series are read at every render:
//   webhook_policy_info{artifact_sha256,abi,document_version} 1   the policy artifact in use
import http from 'node:http';

const HELP = {
  webhook_deadletter_total: 'Webhook events dead-lettered, by stop reason.',
  webhook_delivered_total: 'Webhook events delivered.',
  webhook_attempts_total: 'Webhook delivery attempts sent.',
  webhook_destination_refused_total: 'Delivery attempts refused before connecting: the target resolves to a loopback, private, link-local or other internal address.',
  webhook_budget_disagreements_total: "Budget-store verdicts that differed from the policy's rule on the store's own counts (the store's verdict stood).",
};

const escape = (v) => String(v).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

const labelText = (labels) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(',');

export class Metrics {
  #series = new Map(); // name -> Map(labelText -> value)
  #observed = new Map(); // name -> () => value (a counter kept elsewhere)
  #gauges = new Map(); // name -> {help, read: () => [{labels, value}]}

  /** A gauge whose series `read()` gives at each render (`[{labels, value}]`). */
  gauge(name, help, read) {
    this.#gauges.set(name, { help, read });
  }

  constructor() {
    for (const name of Object.keys(HELP)) this.#series.set(name, new Map());
  }

  inc(name, labels = {}) {
    const text = Object.entries(labels)
      .map(([k, v]) => `${k}="${escape(v)}"`)
      .join(',');
    const series = this.#series.get(name);
    series.set(text, (series.get(text) ?? 0) + 1);
  }

  /** Read counter `name` from `fn` at every render (a count the library keeps). */
  observe(name, fn) {
    this.#observed.set(name, fn);
  }

  get(name, labels = {}) {
    if (this.#observed.has(name)) return this.#observed.get(name)();
    const text = Object.entries(labels)
      .map(([k, v]) => `${k}="${escape(v)}"`)
      .join(',');
    return this.#series.get(name).get(text) ?? 0;
  }

  render() {
    let out = '';
    for (const [name, series] of this.#series) {
      out += `# HELP ${name} ${HELP[name]}\n# TYPE ${name} counter\n`;
      if (this.#observed.has(name)) out += `${name} ${this.#observed.get(name)()}\n`;
      for (const [labels, value] of series) out += `${name}${labels ? `{${labels}}` : ''} ${value}\n`;
    }
    for (const [name, { help, read }] of this.#gauges) {
      out += `# HELP ${name} ${help}\n# TYPE ${name} gauge\n`;
      for (const { labels, value } of read()) out += `${name}{${labelText(labels)}} ${value}\n`;
    }
    return out;
  }
}

/**
 * Serve `metrics` on GET /metrics. Bound to loopback by default (counters
 * name endpoints and failure rates: not for the internet); `host` widens it
 * only when asked. `options`: a port number, or {port (0: any free one), host}.
 */
export async function serveMetrics(metrics, options = {}) {
  const { port = 0, host = '127.0.0.1' } = typeof options === 'number' ? { port: options } : options;
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metrics.render());
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const { address } = server.address();
  const shown = address.includes(':') ? `[${address}]` : address;
  return { url: `http://${shown}:${server.address().port}/metrics`, address, close: () => new Promise((r) => server.close(r)) };
}
