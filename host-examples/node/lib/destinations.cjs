'use strict';
// Which addresses a webhook may be delivered to (docs/destinations.md): the
// component's `destination-refusal`, which judges an address by
// fleet/destinations.json as compiled into policy-core, so every host reads
// the one table the same way (IPv4-mapped and NAT64 addresses by the IPv4
// address they carry). The host only resolves names and calls this.
const { PolicyError } = require('./errors.cjs');
const { artifact } = require('./artifact/current.cjs');

/**
 * Why `address` (an IPv4 or IPv6 text; a zone such as `%eth0` is ignored)
 * may not be a webhook destination (`loopback`, `private`, ...), or null when
 * it may. Throws PolicyError (`invalid_address`) for a text that is no address.
 */
function destinationRefusal(address) {
  const text = String(address).split('%')[0];
  return artifact().run((api) => {
    try {
      return api.destinationRefusal(text) ?? null;
    } catch (e) {
      if (typeof e?.payload !== 'string') throw e;
      const at = e.payload.indexOf(': ');
      throw at < 0 ? new PolicyError('invalid_address', 'address', e.payload) : new PolicyError(e.payload.slice(0, at), 'address', e.payload.slice(at + 2));
    }
  });
}

module.exports = { destinationRefusal };
