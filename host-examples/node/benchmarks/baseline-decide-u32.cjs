'use strict';
// ============================================================================
// BASELINE FOR THE BENCHMARK ONLY — NOT PART OF THE PACKAGE, NEVER USED BY IT.
//
// The same plain-JS port as baseline-decide.cjs, hand-tuned: the u64 jitter
// hash (FNV-1a 64 + SplitMix64) on pairs of 32-bit halves with Math.imul
// instead of BigInt, which is what a team optimising its own port would do.
// tests/baseline.test.mjs checks it against the decide vectors too.
// ============================================================================
const { makeDecide, ceilingMs } = require('./baseline-decide.cjs');

const encoder = new TextEncoder();
let H = 0; // result of mul64/add64: high half
let L = 0; //                       low half

/** (ah:al) * (bh:bl) mod 2^64 into H:L. */
function mul64(ah, al, bh, bl) {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  L = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  const carry = (mid >>> 16) + (p01 >>> 16) + (p10 >>> 16) + a1 * b1; // floor(al * bl / 2^32)
  H = (carry + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

function fnv1a64(eventId) {
  let h = 0xcbf29ce4;
  let l = 0x84222325;
  const visit = (b) => {
    mul64(h, (l ^ b) >>> 0, 0x100, 0x1b3);
    h = H;
    l = L;
  };
  let ascii = true;
  for (let i = 0; i < eventId.length; i++) if (eventId.charCodeAt(i) > 0x7f) ascii = false;
  if (ascii) for (let i = 0; i < eventId.length; i++) visit(eventId.charCodeAt(i));
  else for (const b of encoder.encode(eventId)) visit(b);
  H = h;
  L = l;
}

/** splitmix64(H:L) into H:L. */
function splitmix64() {
  let l = (L + 0x7f4a7c15) >>> 0;
  let h = (H + 0x9e3779b9 + (l < L ? 1 : 0)) >>> 0;
  // z = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
  mul64(h ^ (h >>> 30), (l ^ ((l >>> 30) | (h << 2))) >>> 0, 0xbf58476d, 0x1ce4e5b9);
  h = H;
  l = L;
  // z = (z ^ (z >> 27)) * 0x94d049bb133111eb
  mul64(h ^ (h >>> 27), (l ^ ((l >>> 27) | (h << 5))) >>> 0, 0x94d049bb, 0x133111eb);
  h = H;
  l = L;
  // z ^ (z >> 31)
  H = (h ^ (h >>> 31)) >>> 0;
  L = (l ^ ((l >>> 31) | (h << 1))) >>> 0;
}

/** (H:L) mod m for m < 2^27, exactly in doubles. */
function mod(m) {
  let r = H % m;
  r = (r * 65536) % m;
  r = (r * 65536) % m;
  return (r + (L % m)) % m;
}

function delayMs(b, eventId, i) {
  const c = ceilingMs(b, i);
  const lo = b.jitter === 'none' ? c : b.jitter === 'full' ? 0 : Math.floor(c / 2);
  fnv1a64(eventId);
  L = (L ^ i) >>> 0;
  splitmix64();
  return lo + mod(c - lo + 1);
}

module.exports = { decide: makeDecide(delayMs), delayMs };
