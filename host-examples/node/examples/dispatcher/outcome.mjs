// The host's half of classification: turn what fetch() did into the
// contract's outcome. Which outcomes are retried is the policy's business;
// this only names them (status + Retry-After in ms, or a transport error
// kind). Retry-After is read by the policy core's parser
// (RetryPolicy#retryAfter: digits or an IMF-fixdate, anything else ignored,
// saturating at 2^53-1), never by hand.

/** A fetch Response as an outcome; `retryAfter(header)` is the policy's parser. */
export function responseOutcome(res, retryAfter) {
  // A status outside 100..=599 is no HTTP status the contract knows: a
  // transport failure of its own kind (unknown kinds are terminal).
  if (!(res.status >= 100 && res.status <= 599)) return { error_kind: 'unexpected_status' };
  const header = res.headers.get('retry-after');
  return { status: res.status, retry_after_ms: header === null ? null : retryAfter(header) };
}

/** A fetch rejection as a transport error kind (the contract's classify_error names). */
export function errorOutcome(err) {
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return { error_kind: 'read_timeout' };
  const code = err?.cause?.code ?? err?.code;
  const message = `${err?.message ?? ''} ${err?.cause?.message ?? ''}`;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { error_kind: 'connect_timeout' };
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { error_kind: 'read_timeout' };
    case 'ECONNREFUSED':
    case 'ECONNRESET':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { error_kind: 'connect_error' };
    case 'UND_ERR_SOCKET':
    case 'HPE_INVALID_CONSTANT':
      return { error_kind: 'remote_protocol_error' };
    case 'ERR_INVALID_URL':
      return { error_kind: 'invalid_url' };
    default:
      if (/redirect count exceeded/i.test(message)) return { error_kind: 'too_many_redirects' };
      if (/unknown scheme|not supported|unsupported/i.test(message)) return { error_kind: 'unsupported_protocol' };
      if (/invalid url/i.test(message)) return { error_kind: 'invalid_url' };
      return { error_kind: `unclassified:${code ?? err?.name ?? 'error'}` };
  }
}
