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
import { TRANSPORT_KINDS as K } from '@webhook/retry-policy';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { checkedLookup, DestinationRefused, refusal } from './destination.mjs';
import { CERTIFICATE_ERROR_CODES, trustedCas } from './trust.mjs';

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

/**
 * The attempt was not sent: the event's window closed before the request
 * could be written (docs/replica.md, "The window's edge"). Not a transport
 * error: the caller stops the event `retry_window_elapsed`.
 */
export class NotSentError extends Error {
  constructor(message = 'not sent: the retry window closed before the request was written') {
    super(message);
    this.name = 'NotSentError';
  }
}

const TLS_HANDSHAKE = /^(ERR_TLS|ERR_SSL|EPROTO$)/;

/**
 * A transport failure (a node error) as the contract's kind. `phase` is
 * where the attempt was: 'pool' (waiting for the agent's socket), 'connect'
 * (TCP and TLS handshake), 'write' or 'read'.
 */
export function errorKind(err, { gotResponse = false, phase = null } = {}) {
  if (err instanceof TransportError) return err.kind;
  if (err instanceof DestinationRefused || err?.code === 'EDESTREFUSED') return K.DESTINATION_REFUSED;
  const code = String(err?.code ?? '');
  // The certificate failed verification (issuer, name, dates): terminal.
  if (CERTIFICATE_ERROR_CODES.has(code)) return K.TLS_CERTIFICATE;
  if (code.startsWith('HPE_') || code === 'ERR_HTTP_HEADERS_SENT') return K.REMOTE_PROTOCOL_ERROR;
  switch (code) {
    case 'ECONNREFUSED':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
    case 'EADDRNOTAVAIL':
      return K.CONNECT_ERROR;
    case 'ETIMEDOUT':
      return K.CONNECT_TIMEOUT;
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
      // Reset during the connection or its TLS handshake: connect_error;
      // a reset or EOF where a response (or the rest of it) should be: remote_protocol_error.
      return phase === 'connect' || phase === 'pool' ? K.CONNECT_ERROR : K.REMOTE_PROTOCOL_ERROR;
    case 'ERR_INVALID_URL':
      return K.INVALID_URL;
    case 'ENOSECRET':
      return K.CREDENTIALS_UNAVAILABLE; // no signing secret: never sent unsigned
    case 'ERR_INVALID_CHAR':
    case 'ERR_INVALID_HTTP_TOKEN':
      return K.LOCAL_PROTOCOL_ERROR; // the request as built cannot be sent
    default:
      // A TLS handshake that failed for another reason than the certificate
      // (protocol version, alert, cipher): retryable, like a refused connection.
      if (TLS_HANDSHAKE.test(code)) return K.CONNECT_ERROR;
      // Anything unnamed before a response: terminal, never retried blind.
      return gotResponse ? K.REMOTE_PROTOCOL_ERROR : K.LOCAL_PROTOCOL_ERROR;
  }
}

/**
 * A keep-alive agent whose connections all go through the checked lookup.
 * `ca`: PEM CAs trusted in addition to the platform's roots (https only).
 * The TLS name checked (and sent as SNI) is the URL's host name; the
 * connection goes to the address the lookup checked.
 */
export function createAgent({ allowPrivate = false, https: secure = false, ca = [] } = {}) {
  const options = { keepAlive: true, maxSockets: 256, lookup: checkedLookup({ allowPrivate }) };
  if (!secure) return new http.Agent(options);
  const roots = trustedCas(ca);
  return new https.Agent(roots === null ? options : { ...options, ca: roots });
}

/**
 * POST `body` (a string or Buffer) to `url`. Options: headers, deadlineMs,
 * allowPrivate, agents {http, https} (keep-alive agents from createAgent;
 * extra CAs are an agent's), mayWrite() (asked once the
 * connection is ready, immediately before the request is written; false:
 * nothing is sent and the promise rejects NotSentError), observe(seconds)
 * (the attempt's duration: from the connection's start, or a pooled
 * connection's first byte written, to the end of the body read or the
 * transport error; not called for an attempt refused or never sent).
 */
export function post(url, { headers = {}, body = '', deadlineMs = DEFAULT_ATTEMPT_DEADLINE_MS, allowPrivate = false, agents = {}, mayWrite = null, observe = null } = {}) {
  return new Promise((resolve, reject) => {
    let u;
    try {
      u = new URL(url);
    } catch {
      return reject(new TransportError(K.INVALID_URL, 'the target is not a URL'));
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return reject(new TransportError(K.UNSUPPORTED_PROTOCOL, `unsupported scheme ${u.protocol}`));
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!allowPrivate && net.isIP(host)) {
      const why = refusal(host);
      if (why !== null) return reject(new TransportError(K.DESTINATION_REFUSED, new DestinationRefused(why).message));
    }
    const secure = u.protocol === 'https:';
    const lookup = checkedLookup({ allowPrivate });
    const payload = Buffer.isBuffer(body) ? body : Buffer.from(String(body));
    // 'pool' until the agent hands out a socket -> 'connect' -> 'write' once
    // connected (TLS: handshake done) -> 'read' once the request is sent
    let phase = 'pool';
    let gotResponse = false;
    let done = false;
    let startedAt = performance.now();
    let req;
    const finish = (err, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        req?.destroy();
        const failure = err instanceof TransportError || err instanceof NotSentError ? err : new TransportError(errorKind(err, { gotResponse, phase }), err.message, err);
        if (observe !== null && !(failure instanceof NotSentError) && failure.kind !== K.DESTINATION_REFUSED) observe((performance.now() - startedAt) / 1000);
        reject(failure);
      } else {
        observe?.((performance.now() - startedAt) / 1000);
        resolve(value);
      }
    };
    const timer = setTimeout(() => {
      const kind = { pool: K.POOL_TIMEOUT, connect: K.CONNECT_TIMEOUT, write: K.WRITE_TIMEOUT, read: K.READ_TIMEOUT }[phase];
      finish(new TransportError(kind, `the attempt took longer than ${deadlineMs} ms (${phase})`));
    }, deadlineMs);
    const agent = agents[secure ? 'https' : 'http'] ?? false;
    try {
      req = (secure ? https : http).request({
        protocol: u.protocol,
        hostname: host,
        port: u.port || (secure ? 443 : 80),
        path: `${u.pathname}${u.search}`,
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
        agent,
        lookup,
        maxHeaderSize: MAX_HEADER_BYTES,
        insecureHTTPParser: false,
      });
    } catch (err) {
      return finish(err);
    }
    // The request is written only once the connection is ready (TLS: the
    // handshake verified), so the last check (mayWrite) comes after the
    // wait, the store call, DNS, connect and handshake.
    req.on('socket', (socket) => {
      const write = () => {
        if (done) return;
        phase = 'write';
        if (mayWrite !== null && !mayWrite()) return finish(new NotSentError());
        req.end(payload);
      };
      const fresh = socket.connecting || (secure && socket._secureEstablished !== true);
      if (fresh) {
        phase = 'connect';
        socket.once(secure ? 'secureConnect' : 'connect', write);
      }
      else {
        startedAt = performance.now(); // a pooled connection: timed from its first byte written
        write();
      }
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
      res.on('aborted', () => finish(new TransportError(K.REMOTE_PROTOCOL_ERROR, 'the response was cut short')));
      res.on('error', (err) => finish(err));
    });
  });
}
