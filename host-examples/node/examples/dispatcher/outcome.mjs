// The host's half of classification: turn what the HTTP client did into the
// contract's outcome. Which outcomes are retried is the policy's business;
// this only names them (status + Retry-After in ms, or a transport error
// kind). Retry-After is read by the policy core's parser
// (RetryPolicy#retryAfter: digits or an IMF-fixdate, anything else ignored,
// saturating at 2^53-1), never by hand. The whole table is in README.md.
import { TRANSPORT_KINDS as K } from '@webhook/retry-policy';
import { errorKind } from './http-client.mjs';

/**
 * A response `{status, headers}` (node:http's lower-cased header object, or a
 * fetch Headers) as an outcome; `retryAfter(header)` is the policy's parser.
 */
export function responseOutcome(res, retryAfter) {
  // A status outside 100..=599 is no HTTP status the contract knows: a
  // transport failure of its own kind (unknown kinds are terminal).
  if (!(Number.isInteger(res.status) && res.status >= 100 && res.status <= 599)) return { error_kind: K.UNEXPECTED_STATUS };
  let header = typeof res.headers?.get === 'function' ? res.headers.get('retry-after') : res.headers?.['retry-after'];
  if (Array.isArray(header)) header = header[0];
  return { status: res.status, retry_after_ms: header === null || header === undefined ? null : retryAfter(String(header)) };
}

/** A transport failure as the contract's classify_error name. */
export function errorOutcome(err) {
  return { error_kind: errorKind(err) };
}
