// Vector files as exact JSON values. `JSON.parse` rounds an integer above
// 2^53 - 1 to the nearest double (9007199254741991 reads as
// 9007199254741992), so an expectation such as a wake at
// 9007199254741090 ms could never be compared exactly. Here (lossless-json)
// a file is parsed once with every number kept as its literal text
// (LosslessNumber), and then:
//   * `values(raw)`: the value in the package's own shape for a u64, an
//     integer literal that is not a safe integer as a BigInt and every other
//     number as a Number (what the package's functions take);
//   * `exactText(raw)`: the value written back as JSON text with each number
//     EXACTLY as the file wrote it (lossless-json writes a LosslessNumber's
//     text verbatim): what the component's `vector-case` reads. Strings and
//     keys are their parsed values re-escaped, a duplicate key with a
//     different value is a parse error, so nothing the component reads
//     differs from the file but insignificant whitespace and escapes.
// Values are printed back with bigints as JSON integers, never as "...n" strings.
import { parse, stringify, isLosslessNumber } from 'lossless-json';

const INTEGER = /^-?\d+$/;

/** A number literal: a BigInt when it is an integer beyond 2^53 - 1, else a Number. */
function number(text) {
  const x = Number(text);
  return INTEGER.test(text) && !Number.isSafeInteger(x) ? BigInt(text) : x;
}

/** JSON text -> its value with every number kept as its literal text. Throws a SyntaxError on bad JSON. */
export const readRaw = (text) => parse(text);

/** A raw value (readRaw) with its numbers as the package takes them: integers beyond 2^53 - 1 exact (BigInt). */
export function values(raw) {
  if (isLosslessNumber(raw)) return number(raw.value);
  if (Array.isArray(raw)) return raw.map(values);
  if (typeof raw !== 'object' || raw === null) return raw;
  const out = {};
  for (const [k, v] of Object.entries(raw)) out[k] = values(v);
  return out;
}

/** A raw value (readRaw) as JSON text, each number exactly as it was read. */
export const exactText = (raw) => stringify(raw);

/** JSON text -> its value, integers beyond 2^53 - 1 exact (BigInt). Throws a SyntaxError on bad JSON. */
export const readJson = (text) => values(readRaw(text));

/** A value as JSON text, bigints written as JSON integers. */
export const showJson = (value) => stringify(value) ?? 'undefined';

const isNumber = (v) => typeof v === 'number' || typeof v === 'bigint';

/** Two numbers (Number or BigInt) of one mathematical value. */
function sameNumber(a, b) {
  if (typeof a === typeof b) return a === b;
  const [big, x] = typeof a === 'bigint' ? [a, b] : [b, a];
  return Number.isInteger(x) && BigInt(x) === big;
}

/**
 * Equal as JSON values, as the Rust reference compares
 * (policy-core/src/vectors `same`): numbers by exact value
 * (a Number and a BigInt of one value are equal, a boolean never equals a
 * number), object members in any order, arrays element by element.
 */
export function sameJson(a, b) {
  if (isNumber(a) || isNumber(b)) return isNumber(a) && isNumber(b) && sameNumber(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return a === b;
}
