// Certificates made at test time with the openssl CLI (nothing committed):
// a CA, a server certificate for 127.0.0.1 (IP SAN) and one for another
// name (other.invalid), both signed by the CA; plus an https server on
// loopback. Not a test file itself (tests/*.test.mjs import it).
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const openssl = (args, cwd) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

function leaf(dir, name, san) {
  fs.writeFileSync(path.join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`], dir);
  return { cert: fs.readFileSync(path.join(dir, `${name}.pem`), 'utf8'), key: fs.readFileSync(path.join(dir, `${name}.key`), 'utf8'), certFile: path.join(dir, `${name}.pem`), keyFile: path.join(dir, `${name}.key`) };
}

/** {dir, caFile, ca (PEM), loopback {cert, key, certFile, keyFile} for 127.0.0.1, other (for other.invalid), localhost (DNS:localhost), cleanup()}. */
export function makeCertificates() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-tls-'));
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=webhook test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    ca: fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8'),
    loopback: leaf(dir, 'loopback', 'IP:127.0.0.1'),
    other: leaf(dir, 'other', 'DNS:other.invalid'),
    localhost: leaf(dir, 'localhost', 'DNS:localhost'),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** An https server on 127.0.0.1 answering `status` to every POST; {url, hits(), close()}. */
export async function httpsServer({ cert, key }, status = 200) {
  let hits = 0;
  const server = https.createServer({ cert, key }, (req, res) => {
    req.resume();
    req.on('end', () => {
      hits += 1;
      res.statusCode = status;
      res.end();
    });
  });
  server.on('tlsClientError', () => {});
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${server.address().port}/hook`,
    hits: () => hits,
    close: () => new Promise((r) => {
      server.closeAllConnections?.();
      server.close(r);
    }),
  };
}
