// One webhook POST on node:http / node:https, bounded for hostile endpoints:
//   * one total deadline per attempt (connect + send + response + body
//     prefix), default 30 s: a drip cannot hold a worker;
//   * response headers capped (`maxHeaderSize`, 16 KiB): an endless header
//     line is a parse error, not a memory leak;
//   * at most a 64 KiB body prefix is read, then the socket is cut; the body
//     is discarded (only its status and headers matter);
//   * redirects are never followed (node:http does not follow; a 3xx is
//     the endpoint's answer, terminal by the contract's table);
//   * the DNS lookup is hooked (destination.mjs): the address checked is the
//     address connected to.
// Resolves {status, headers} for any parsed response (the caller maps a
// status outside 100..=599), rejects a TransportError whose `kind` is the
// contract's transport error name (the table in README.md).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { checkedLookup, DestinationRefused, refusal } from './destination.mjs';

export const DEFAULT_ATTEMPT_DEADLINE_MS = 30_000;
export const MAX_HEADER_BYTES = 16 * 1024;
export const MAX_BODY_PREFIX_BYTES = 64 * 1024;

export class TransportError extends Error {
  constructor(kind, message, cause) {
    super(message);
    this.name = 'TransportError';
    this.kind = kind;
    if (cause !== undefined) this.cause = cause;
  }
}

/** A transport failure (a node error) as the contract's kind. */
export function errorKind(err, { gotResponse = false } = {}) {
  if (err instanceof TransportError) return err.kind;
  if (err instanceof DestinationRefused || err?.code === 'EDESTREFUSED') return 'destination_refused';
  const code = String(err?.code ?? '');
  if (code.startsWith('HPE_') || code === 'ERR_HTTP_HEADERS_SENT') return 'remote_protocol_error';
  switch (code) {
    case 'ECONNREFUSED':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
    case 'EADDRNOTAVAIL':
      return 'connect_error';
    case 'ETIMEDOUT':
      return 'connect_timeout';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
      // A reset or EOF where a response (or the rest of it) should be.
      return 'remote_protocol_error';
    case 'ERR_INVALID_URL':
      return 'invalid_url';
    case 'ENOSECRET':
      return 'credentials_unavailable'; // never sent unsigned
    case 'ERR_INVALID_CHAR':
    case 'ERR_INVALID_HTTP_TOKEN':
      return 'invalid_request_header';
    default:
      // TLS failures (ERR_TLS_*, certificate codes) and anything unnamed:
      // unknown kinds are terminal by the contract; never retried blind.
      if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code)) return 'tls_error';
      return gotResponse ? 'remote_protocol_error' : 'unclassified';
  }
}

/** A keep-alive agent whose connections all go through the checked lookup. */
export function createAgent({ allowPrivate = false, https: secure = false } = {}) {
  const Agent = secure ? https.Agent : http.Agent;
  return new Agent({ keepAlive: true, maxSockets: 256, lookup: checkedLookup({ allowPrivate }) });
}

/**
 * POST `body` (a string or Buffer) to `url`. Options: headers, deadlineMs,
 * allowPrivate, agents {http, https} (keep-alive agents from createAgent).
 */
export function post(url, { headers = {}, body = '', deadlineMs = DEFAULT_ATTEMPT_DEADLINE_MS, allowPrivate = false, agents = {} } = {}) {
  return new Promise((resolve, reject) => {
    let u;
    try {
      u = new URL(url);
    } catch {
      return reject(new TransportError('invalid_url', 'the target is not a URL'));
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return reject(new TransportError('unsupported_protocol', `unsupported scheme ${u.protocol}`));
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!allowPrivate && net.isIP(host)) {
      const why = refusal(host);
      if (why !== null) return reject(new TransportError('destination_refused', new DestinationRefused(why).message));
    }
    const secure = u.protocol === 'https:';
    const lookup = checkedLookup({ allowPrivate });
    const payload = Buffer.isBuffer(body) ? body : Buffer.from(String(body));
    let phase = 'connect'; // -> 'write' once connected -> 'read' once the request is sent
    let gotResponse = false;
    let done = false;
    let req;
    const finish = (err, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        req?.destroy();
        reject(err instanceof TransportError ? err : new TransportError(errorKind(err, { gotResponse }), err.message, err));
      } else resolve(value);
    };
    const timer = setTimeout(() => {
      const kind = { connect: 'connect_timeout', write: 'write_timeout', read: 'read_timeout' }[phase];
      finish(new TransportError(kind, `the attempt took longer than ${deadlineMs} ms (${phase})`));
    }, deadlineMs);
    try {
      req = (secure ? https : http).request({
        protocol: u.protocol,
        hostname: host,
        port: u.port || (secure ? 443 : 80),
        path: `${u.pathname}${u.search}`,
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
        agent: agents[secure ? 'https' : 'http'] ?? false,
        lookup,
        maxHeaderSize: MAX_HEADER_BYTES,
        insecureHTTPParser: false,
      });
    } catch (err) {
      return finish(err);
    }
    req.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => (phase = phase === 'connect' ? 'write' : phase));
      else if (phase === 'connect') phase = 'write';
    });
    req.on('finish', () => (phase = 'read'));
    req.on('error', (err) => finish(err));
    req.on('response', (res) => {
      gotResponse = true;
      phase = 'read';
      const value = { status: res.statusCode, headers: res.headers };
      let read = 0;
      res.on('data', (chunk) => {
        read += chunk.length; // discarded: only a bounded prefix is ever read
        if (read >= MAX_BODY_PREFIX_BYTES) {
          finish(null, value);
          res.destroy(); // cut the rest (and the connection): never read a huge body
        }
      });
      res.on('end', () => finish(null, value));
      res.on('aborted', () => finish(new TransportError('remote_protocol_error', 'the response was cut short')));
      res.on('error', (err) => finish(err));
    });
    req.end(payload);
  });
}
