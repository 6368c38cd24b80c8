// Local webhook receivers for the example and its tests (node:http on a
// loopback port): /healthy answers 204, /always-503 answers 503 with
// Retry-After: 1, /gone answers 410; hostile ones: /status-999, /huge-retry-after
// (503, Retry-After: 99999999999999999999), /redirect (307 to /healthy).
// Counts the requests each path got.
import http from 'node:http';

export async function startEndpoints() {
  const hits = new Map();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.set(req.url, (hits.get(req.url) ?? 0) + 1);
      if (req.method !== 'POST') return res.writeHead(405).end();
      if (req.url === '/healthy') return res.writeHead(204).end();
      if (req.url === '/always-503') return res.writeHead(503, { 'retry-after': '1' }).end('busy');
      if (req.url === '/gone') return res.writeHead(410).end('gone');
      if (req.url === '/status-999') return res.writeHead(999).end();
      if (req.url === '/huge-retry-after') return res.writeHead(503, { 'retry-after': '99999999999999999999' }).end();
      if (req.url === '/redirect') return res.writeHead(307, { location: '/healthy' }).end();
      res.writeHead(404).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    hits: (p) => hits.get(p) ?? 0,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
