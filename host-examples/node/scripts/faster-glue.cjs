// Three rewrites of jco 1.10.2's glue that keep what it does and cut what a
// call costs (issue 26: of jco's evaluate, 5.2 us a call, 62% went to the
// first two spots below, TextEncoder 43% and the view check 19%, and ~7%
// to the component; the third made a BigInt per u64; measured with node
// --cpu-prof, host-examples/node/README.md "Where a step's time goes"):
//
//   1. the memory views: jco asks `dv.buffer === mem.buffer` before each of
//      a call's ~30 loads and stores (two getters, one of them a call into
//      V8's C++); here a view is kept per memory and rebuilt only when the
//      memory grew (a grown memory detaches its old buffer: the byte view's
//      length drops to 0);
//   2. strings to the guest: jco encodes each with TextEncoder#encode (a new
//      buffer, copied again into the guest's); an ASCII string of at most
//      256 UTF-16 units (event and endpoint ids, error kinds) is written
//      byte by byte into the guest's allocation, whose size is its length,
//      exactly as the encoder would have it; anything else goes the jco way;
//   3. u64 stores: jco makes a BigInt of each (`toUint64`, a heap object);
//      a non-negative safe integer number is stored as its two 32-bit
//      halves, the same 8 bytes; any other value goes the jco way (which
//      also keeps its errors: BigInt(1.5) still throws).
//
// Each rewrite must match the glue exactly as many times as expected, or
// generation fails (a new jco would otherwise be rewritten half-way).
'use strict';

function replaceExactly(src, from, to, times) {
  const n = src.split(from).length - 1;
  if (n !== times) throw new Error(`faster-glue: expected ${times} of \`${from}\` in jco's output, found ${n}`);
  return src.split(from).join(to);
}

const VIEWS_BEFORE = `  let dv = new DataView(new ArrayBuffer());
  const dataView = mem => dv.buffer === mem.buffer ? dv : dv = new DataView(mem.buffer);`;
const VIEWS_AFTER = `  // faster-glue: views kept per memory, rebuilt when it grew (its old buffer detached)
  let dv = new DataView(new ArrayBuffer());
  let u8 = new Uint8Array(0);
  let viewsOf = null;
  function views(mem) {
    viewsOf = mem;
    dv = new DataView(mem.buffer);
    u8 = new Uint8Array(dv.buffer);
  }
  const dataView = mem => (viewsOf === mem && u8.length !== 0 ? dv : (views(mem), dv));
  const bytes = mem => (viewsOf === mem && u8.length !== 0 ? u8 : (views(mem), u8));
  // faster-glue: a u64 store; a non-negative safe integer number as its two 32-bit halves
  function setU64(view, ptr, val) {
    if (typeof val === 'number' && val >= 0 && val <= 9007199254740991 && Number.isInteger(val)) {
      view.setUint32(ptr, val >>> 0, true);
      view.setUint32(ptr + 4, Math.floor(val / 4294967296), true);
    } else {
      view.setBigInt64(ptr, toUint64(val), true);
    }
  }`;

const ENCODE_BEFORE = '    let buf = utf8Encoder.encode(s);';
const ENCODE_AFTER = `    // faster-glue: a short ASCII string written byte by byte into the guest's allocation
    const n = s.length;
    if (n <= 256) {
      let i = 0;
      while (i < n && s.charCodeAt(i) < 0x80) i++;
      if (i === n) {
        const ptr = realloc(0, 0, 1, n);
        const mem = bytes(memory);
        for (let j = 0; j < n; j++) mem[ptr + j] = s.charCodeAt(j);
        utf8EncodedLen = n;
        return ptr;
      }
    }
    let buf = utf8Encoder.encode(s);`;

/** jco's glue with the three rewrites. */
function faster(src) {
  // dataView(memory0).setBigInt64(ptr0 + 16, toUint64(v2_2), true); -> setU64(dataView(memory0), ptr0 + 16, v2_2);
  const store = /dataView\((memory\d+)\)\.setBigInt64\(([^,()]+), toUint64\(([\w$]+)\), true\);/g;
  const all = (src.match(/\.setBigInt64\(/g) ?? []).length;
  const matched = (src.match(store) ?? []).length;
  if (matched === 0 || matched !== all) throw new Error(`faster-glue: ${matched} of jco's ${all} u64 stores have the expected shape`);
  let out = src.replace(store, 'setU64(dataView($1), $2, $3);');
  out = replaceExactly(out, VIEWS_BEFORE, VIEWS_AFTER, 1);
  return replaceExactly(out, ENCODE_BEFORE, ENCODE_AFTER, 1);
}

module.exports = { faster };
