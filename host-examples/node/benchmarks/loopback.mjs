// One loopback POST with Node's usual clients (fetch = undici; node:http with
// a keep-alive agent) to a node:http server answering 204: the cost a
// dispatcher pays per attempt anyway, the yardstick of the policy's cost.
import http from 'node:http';

async function median(fn, n) {
  for (let i = 0; i < 300; i++) await fn(); // warm-up, connections open
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** {fetch, http}: median ns of one POST of a small JSON body. */
export async function loopbackPostNs(n = 3000) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/hook`;
  const body = JSON.stringify({ id: 'evt_0123456789', type: 'invoice.paid', data: { amount: 4200 } });
  const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_0123456789' };
  const viaFetch = await median(async () => {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual' });
    await res.arrayBuffer();
  }, n);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const viaHttp = await median(
    () =>
      new Promise((resolve, reject) => {
        const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', reject);
        req.end(body);
      }),
    n,
  );
  agent.destroy();
  await new Promise((r) => server.close(r));
  return { fetch: viaFetch, http: viaHttp };
}
