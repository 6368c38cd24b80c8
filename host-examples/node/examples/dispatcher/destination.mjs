// Which addresses a webhook may be delivered to. By default a target that
// resolves to loopback, private, link-local, shared, unspecified,
// multicast, broadcast or reserved space is refused (an endpoint URL is the
// customer's input: 169.254.169.254 or 10.0.0.5 would reach our own
// network). The check runs inside the HTTP client's DNS `lookup` hook, so
// the address that was checked is the address connected to: one resolution,
// no DNS-rebinding gap. IP literals never reach `lookup` (net skips it) and
// are checked before connecting.
import dns from 'node:dns';
import net from 'node:net';

/** The error a refused destination travels in (its `code`: EDESTREFUSED). */
export class DestinationRefused extends Error {
  constructor(why) {
    super(`destination refused: the target resolves to a ${why} address`);
    this.name = 'DestinationRefused';
    this.code = 'EDESTREFUSED';
    this.why = why;
  }
}

function list(type, entries) {
  return entries.map(([why, cidrs]) => {
    const b = new net.BlockList();
    for (const cidr of cidrs) {
      const [addr, prefix] = cidr.split('/');
      b.addSubnet(addr, Number(prefix), type);
    }
    return [why, b];
  });
}

// Order matters: the first match names the reason.
const V4 = list('ipv4', [
  ['unspecified', ['0.0.0.0/8']],
  ['loopback', ['127.0.0.0/8']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['link-local', ['169.254.0.0/16']],
  ['shared', ['100.64.0.0/10']],
  ['broadcast', ['255.255.255.255/32']],
  ['multicast', ['224.0.0.0/4']],
  ['reserved', ['240.0.0.0/4', '192.0.0.0/24', '192.0.2.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24']],
]);
const V6 = list('ipv6', [
  ['unspecified', ['::/128']],
  ['loopback', ['::1/128']],
  ['private', ['fc00::/7']],
  ['link-local', ['fe80::/10']],
  ['multicast', ['ff00::/8']],
  ['reserved', ['2001:db8::/32']],
]);

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

/** Why `address` may not be a webhook destination, or null when it may. */
export function refusal(address) {
  const type = net.isIP(address);
  if (type === 4) {
    for (const [why, b] of V4) if (b.check(address, 'ipv4')) return why;
    return null;
  }
  if (type !== 6) return 'unparsable';
  const b = v6Bytes(address);
  const zeros = (n) => b.slice(0, n).every((x) => x === 0);
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::/96): judge the IPv4 address carried.
  const nat64 = b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0);
  if ((zeros(10) && b[10] === 0xff && b[11] === 0xff) || nat64) return refusal(b.slice(12).join('.'));
  for (const [why, list6] of V6) if (list6.check(address, 'ipv6')) return why;
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
