// Which addresses a webhook may be delivered to: the product's one table,
// fleet/destinations.json, judged by the component (`destinationRefusal`,
// docs/destinations.md). By default a target that resolves to loopback,
// private, link-local, cloud metadata, shared, unspecified, multicast,
// broadcast, documentation, benchmarking or reserved space is refused (an
// endpoint URL is the customer's input: 169.254.169.254 or 10.0.0.5 would
// reach our own network). The check runs inside the HTTP client's DNS
// `lookup` hook, so the address that was checked is the address connected
// to: one resolution, no DNS-rebinding gap. IP literals never reach `lookup`
// (net skips it) and are checked before connecting.
import dns from 'node:dns';
import { destinationRefusal, PolicyError } from '@webhook/retry-policy';

/** The error a refused destination travels in (its `code`: EDESTREFUSED). */
export class DestinationRefused extends Error {
  constructor(why) {
    super(`destination refused: the target resolves to a ${why} address`);
    this.name = 'DestinationRefused';
    this.code = 'EDESTREFUSED';
    this.why = why;
  }
}

/** Why `address` may not be a webhook destination (the component's table), `unparsable` for no address, or null when it may. */
export function refusal(address) {
  try {
    return destinationRefusal(String(address));
  } catch (e) {
    if (e instanceof PolicyError) return 'unparsable';
    throw e;
  }
}

/**
 * A `lookup` for node:http / net (same signature as dns.lookup) that
 * resolves once and refuses the whole name when ANY address it resolves to
 * is refused (a name must not be able to pick the internal one later).
 */
export function checkedLookup({ allowPrivate = false, resolve = dns.lookup } = {}) {
  return (hostname, options, callback) => {
    const opts = { ...options }; // net and tls always pass an options object
    resolve(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err);
      if (!Array.isArray(addresses) || addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      if (!allowPrivate) {
        for (const a of addresses) {
          const why = refusal(a.address);
          if (why !== null) return callback(new DestinationRefused(why));
        }
      }
      if (opts.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
