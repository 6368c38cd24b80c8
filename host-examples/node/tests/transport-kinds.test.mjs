// The transport kinds this host reports are lib/transport-kinds.cjs, and
// that file is fleet/transport-kinds.json: same names, same order, and the
// policy's classifyError (the package's public API, on the shipped
// artifact) gives each the table's class. No other file spells a kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRANSPORT_KINDS, TRANSPORT_KIND_NAMES, classifyError, loadArtifact, artifactInfo } from '@webhook/retry-policy';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const table = JSON.parse(fs.readFileSync(path.join(pkg, '../../fleet/transport-kinds.json'), 'utf8'));

test('the package constants are the fleet table: every kind, in order, nothing more', () => {
  assert.equal(table.format, 1);
  assert.deepEqual([...TRANSPORT_KIND_NAMES], table.kinds.map((k) => k.kind));
  assert.deepEqual(Object.entries(TRANSPORT_KINDS), table.kinds.map((k) => [k.kind.toUpperCase(), k.kind]));
  assert.ok(Object.isFrozen(TRANSPORT_KINDS) && Object.isFrozen(TRANSPORT_KIND_NAMES));
});

test("the shipped artifact's classify_error gives every kind the table's class", () => {
  const shipped = path.join(pkg, 'lib/retry_policy.wasm');
  loadArtifact(shipped);
  assert.equal(artifactInfo().sha256, crypto.createHash('sha256').update(fs.readFileSync(shipped)).digest('hex'));
  for (const { kind, class: expected } of table.kinds) assert.equal(classifyError(kind), expected, kind);
  assert.equal(classifyError('Connect_Timeout'), 'terminal', 'names are matched exactly: a misspelt kind turns terminal');
});

test('the TypeScript union TransportKind lists exactly the table', () => {
  const dts = fs.readFileSync(path.join(pkg, 'lib/transport-kinds.d.cts'), 'utf8'); // re-exported by index.d.cts
  const m = dts.match(/export type TransportKind =([^;]*);/);
  assert.ok(m, 'TransportKind in transport-kinds.d.cts');
  assert.deepEqual([...m[1].matchAll(/'([a-z_]+)'/g)].map((x) => x[1]), table.kinds.map((k) => k.kind));
});

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'component' || e.name === 'fleet' ? [] : sources(p);
    return /\.(c|m)?js$/.test(e.name) ? [p] : [];
  });
}

test('no source file but lib/transport-kinds.cjs spells a kind as a string literal', () => {
  const kinds = table.kinds.map((k) => k.kind).join('|');
  const literal = new RegExp(`['"\`](${kinds})['"\`]`);
  const offenders = [...sources(path.join(pkg, 'lib')), ...sources(path.join(pkg, 'examples'))]
    .filter((f) => !f.endsWith(`${path.sep}transport-kinds.cjs`))
    .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').map((line, i) => [f, i + 1, line]))
    .filter(([, , line]) => literal.test(line))
    .map(([f, n, line]) => `${path.relative(pkg, f)}:${n}: ${line.trim()}`);
  assert.deepEqual(offenders, []);
});
