// Which addresses a webhook may be delivered to: the product's one table,
// fleet/destinations.json (copied into lib/fleet/ by ./setup; see
// docs/destinations.md). By default a target that resolves to loopback,
// private, link-local, cloud metadata, shared, unspecified, multicast,
// broadcast, documentation, benchmarking or reserved space is refused (an
// endpoint URL is the customer's input: 169.254.169.254 or 10.0.0.5 would
// reach our own network). The check runs inside the HTTP client's DNS
// `lookup` hook, so the address that was checked is the address connected
// to: one resolution, no DNS-rebinding gap. IP literals never reach `lookup`
// (net skips it) and are checked before connecting.
import dns from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';

/** Where the table is read from: the package's copy of fleet/destinations.json. */
export const DESTINATIONS_PATH = new URL('../../lib/fleet/destinations.json', import.meta.url);

/** The error a refused destination travels in (its `code`: EDESTREFUSED). */
export class DestinationRefused extends Error {
  constructor(why) {
    super(`destination refused: the target resolves to a ${why} address`);
    this.name = 'DestinationRefused';
    this.code = 'EDESTREFUSED';
    this.why = why;
  }
}

/** The 16 bytes of an IPv6 address text (net.isIPv6 already true). */
function v6Bytes(text) {
  let s = text.split('%')[0];
  const tail = [];
  const dotted = s.match(/:(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    tail.push(...dotted[1].split('.').map(Number));
    s = `${s.slice(0, dotted.index)}:0:0`;
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, null];
  const h = head ? head.split(':') : [];
  const r = rest ? rest.split(':') : [];
  const groups = rest === null ? h : [...h, ...Array(8 - h.length - r.length).fill('0'), ...r];
  const bytes = groups.flatMap((g) => {
    const n = parseInt(g || '0', 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** An address text as [family, BigInt of its bits], or null. */
function bits(text) {
  const type = net.isIP(text.split('%')[0]);
  if (type === 4) return [4, text.split('.').reduce((n, x) => (n << 8n) | BigInt(Number(x)), 0n)];
  if (type === 6) return [6, v6Bytes(text).reduce((n, x) => (n << 8n) | BigInt(x), 0n)];
  return null;
}

function prefix(cidr, reason) {
  const [addr, len] = cidr.split('/');
  const parsed = bits(addr);
  if (parsed === null || !/^\d+$/.test(len)) throw new Error(`destinations.json: bad cidr ${cidr}`);
  const [family, value] = parsed;
  const shift = BigInt((family === 4 ? 32 : 128) - Number(len));
  return { family, shift, top: value >> shift, reason };
}

const contains = (p, family, value) => p.family === family && (value >> p.shift) === p.top;

let table = null;
function loaded() {
  if (table === null) {
    const doc = JSON.parse(fs.readFileSync(DESTINATIONS_PATH, 'utf8'));
    table = {
      embedded: doc.embedded_ipv4.map((c) => prefix(c, null)),
      refused: doc.refused.map((e) => prefix(e.cidr, e.reason)),
    };
  }
  return table;
}

/**
 * Why `address` may not be a webhook destination, or null when it may: the
 * first entry of the table containing it, after an IPv6 address carrying an
 * IPv4 one (IPv4-mapped, NAT64) is replaced by that IPv4 address.
 */
export function refusal(address) {
  const parsed = bits(String(address));
  if (parsed === null) return 'unparsable';
  let [family, value] = parsed;
  const t = loaded();
  if (family === 6 && t.embedded.some((p) => contains(p, 6, value))) [family, value] = [4, value & 0xffffffffn];
  for (const p of t.refused) if (contains(p, family, value)) return p.reason;
  return null;
}

/**
 * A `lookup` for node:http / net (same signature as dns.lookup) that
 * resolves once and refuses the whole name when ANY address it resolves to
 * is refused (a name must not be able to pick the internal one later).
 */
export function checkedLookup({ allowPrivate = false, resolve = dns.lookup } = {}) {
  return (hostname, options, callback) => {
    if (typeof options === 'function') {
      callback = options;
      options = {};
    }
    const opts = typeof options === 'number' ? { family: options } : { ...options };
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
