// A loopback webhook receiver in its own process (so its CPU is not the
// dispatcher's): node:http on 127.0.0.1, every request drained, then 503
// for one in `--every-503` (default 5) and 204 for the rest, by a request
// counter (deterministic). Prints its port on stdout, one line; exits when
// its stdin closes (the parent went away).
import http from 'node:http';

const flag = process.argv.indexOf('--every-503');
const every503 = flag > 0 ? Number(process.argv[flag + 1]) : 5;
if (!(Number.isInteger(every503) && every503 > 0)) {
  process.stderr.write('loopback-endpoint: --every-503 must be a positive integer\n');
  process.exit(2);
}
let requests = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests += 1;
    if (requests % every503 === 0) res.writeHead(503).end('busy');
    else res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
