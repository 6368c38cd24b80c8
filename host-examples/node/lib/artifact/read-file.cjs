'use strict';
// Step 1 of docs/artifact.md: the pin's form, then the artifact's bytes,
// bounded (the reader the rollout's trust file shares). Only a regular file is read (opened non-blocking, so a fifo
// never blocks the open, then judged by fstat): /dev/zero, a fifo, a
// directory or a socket is artifact_unreadable without a byte read. A
// regular file longer than MAX_ARTIFACT_BYTES is artifact_too_large from
// its size alone, and the read stops at the cap + 1 byte, so a file that
// grows while it is read (or whose size stat does not know) is refused the
// same way.
const fs = require('node:fs');
const { ArtifactError } = require('../errors.cjs');

/** The most bytes an artifact may have: 4 MiB, the same in every host (tests/vectors-artifact). */
const MAX_ARTIFACT_BYTES = 4 * 1024 * 1024;

const tooLarge = (source, size) => new ArtifactError(
  'artifact_too_large',
  `${source} ${size === null ? `has more than ${MAX_ARTIFACT_BYTES}` : `is ${size}`} bytes; an artifact is at most ${MAX_ARTIFACT_BYTES} bytes (4 MiB)`,
);

function kind(st) {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a fifo';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

/**
 * The bytes of the regular file `file` (a Uint8Array), at most `max`; the
 * refusals are the caller's: `refuse.unreadable(why)`, `refuse.notFile(kind)`,
 * `refuse.tooLarge(size, or null when only the read found it)`.
 */
function readRegularFile(file, max, refuse) {
  const io = (f) => {
    try {
      return f();
    } catch (e) {
      throw refuse.unreadable(e.message);
    }
  };
  const fd = io(() => fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0)));
  try {
    const st = io(() => fs.fstatSync(fd));
    if (!st.isFile()) throw refuse.notFile(kind(st));
    if (st.size > max) throw refuse.tooLarge(st.size);
    let buf = Buffer.allocUnsafe(st.size + 1);
    let total = 0;
    for (;;) {
      if (total === buf.length) {
        if (total > max) throw refuse.tooLarge(null);
        const grown = Buffer.allocUnsafe(Math.min(buf.length * 2, max + 1));
        buf.copy(grown, 0, 0, total);
        buf = grown;
      }
      const n = io(() => fs.readSync(fd, buf, total, buf.length - total, null));
      if (n === 0) break;
      total += n;
    }
    if (total > max) throw refuse.tooLarge(null);
    return new Uint8Array(buf.buffer, buf.byteOffset, total);
  } finally {
    fs.closeSync(fd);
  }
}

/** The bytes of the artifact file `file` (a Uint8Array), at most MAX_ARTIFACT_BYTES; throws ArtifactError. */
function readArtifactFile(file) {
  const unreadable = (why) => new ArtifactError('artifact_unreadable', `cannot read ${file}: ${why}`);
  return readRegularFile(file, MAX_ARTIFACT_BYTES, {
    unreadable,
    notFile: (k) => unreadable(`not a regular file (${k})`),
    tooLarge: (size) => tooLarge(file, size),
  });
}

/** artifact_too_large when `bytes` (from `source`) exceed the cap. */
function checkSize(bytes, source) {
  if (bytes.length > MAX_ARTIFACT_BYTES) throw tooLarge(source, bytes.length);
}

/**
 * The pin: the caller's when given and not empty, else
 * RETRY_POLICY_ARTIFACT_SHA256 when set and not empty, else null. It must be
 * 64 hex digits, either case (artifact_pin_invalid); returned lower case.
 */
function pinOf(expectedSha256) {
  const given = (expectedSha256 == null || expectedSha256 === '') ? (process.env.RETRY_POLICY_ARTIFACT_SHA256 || null) : expectedSha256;
  if (given === null) return null;
  if (typeof given !== 'string' || !/^[0-9a-fA-F]{64}$/.test(given)) {
    throw new ArtifactError('artifact_pin_invalid', `the pin ${JSON.stringify(String(given).slice(0, 80))} is not a sha256: expected 64 hex digits (either case)`);
  }
  return given.toLowerCase();
}

module.exports = { MAX_ARTIFACT_BYTES, readArtifactFile, readRegularFile, checkSize, pinOf };
