// Vector files as exact JSON values. `JSON.parse` rounds an integer above
// 2^53 - 1 to the nearest double (9007199254741991 reads as
// 9007199254741992), so an expectation such as a wake at
// 9007199254741090 ms could never be compared exactly. Here (lossless-json)
// an integer literal that is not a safe integer is read as a BigInt, every
// other number as a Number: the package's own shape for a u64 (a number up
// to 2^53 - 1, a bigint above; README, "API"). Values are printed back with
// bigints as JSON integers, never as "...n" strings.
import { parse, stringify } from 'lossless-json';

const INTEGER = /^-?\d+$/;

/** A number literal: a BigInt when it is an integer beyond 2^53 - 1, else a Number. */
function number(text) {
  const x = Number(text);
  return INTEGER.test(text) && !Number.isSafeInteger(x) ? BigInt(text) : x;
}

/** JSON text -> its value, integers beyond 2^53 - 1 exact (BigInt). Throws a SyntaxError on bad JSON. */
export const readJson = (text) => parse(text, null, number);

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
 * (policy-core/tests/health_vectors.rs `same`): numbers by exact value
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
