// The Node versions this code runs on, checked at startup with a clear
// error instead of a TypeError deep inside: the journal's records carry a
// zlib.crc32 checksum (added in Node 22.2.0, back-ported to 20.15.0), so
// the floor is >=20.15.0 <21 || >=22.2.0 (package.json "engines").
import zlib from 'node:zlib';

export const SUPPORTED_NODE = '>=20.15.0 <21 || >=22.2.0';

/** null when `version` ("20.15.0") is supported, else why not. */
export function unsupportedNode(version = process.versions.node, hasCrc32 = typeof zlib.crc32 === 'function') {
  const [major, minor] = version.split('.').map(Number);
  const ok = (major === 20 && minor >= 15) || (major === 22 && minor >= 2) || major >= 23;
  if (ok && hasCrc32) return null;
  return `Node ${version} is not supported: this needs Node ${SUPPORTED_NODE} (zlib.crc32 for the journal's checksums)`;
}

/** Exit 2 with one line on stderr (`prefix: ...`) on an unsupported Node. */
export function requireSupportedNode(prefix) {
  const why = unsupportedNode();
  if (why !== null) {
    process.stderr.write(`${prefix}: ${why}\n`);
    process.exit(2);
  }
}
