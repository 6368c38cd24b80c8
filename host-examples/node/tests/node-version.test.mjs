// package.json "engines" is the floor the code needs (the journal's
// zlib.crc32: Node 20.15 / 22.2), and the startup check refuses the
// versions below it with a clear line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { unsupportedNode, SUPPORTED_NODE } from '../examples/dispatcher/node-version.mjs';

test('package.json engines is the range the startup check enforces', () => {
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.engines.node, SUPPORTED_NODE);
  const lock = JSON.parse(fs.readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
  assert.equal(lock.packages[''].engines.node, SUPPORTED_NODE);
});

test('versions without zlib.crc32 are refused naming the range; the ones with it pass', () => {
  for (const old of ['18.20.0', '20.14.0', '21.7.3', '22.1.0']) {
    assert.match(unsupportedNode(old, true), new RegExp(`Node ${old.replaceAll('.', '\\.')} is not supported: this needs Node >=20\\.15\\.0 <21 \\|\\| >=22\\.2\\.0`));
  }
  for (const ok of ['20.15.0', '20.20.2', '22.2.0', '24.1.0']) assert.equal(unsupportedNode(ok, true), null, ok);
  assert.notEqual(unsupportedNode('22.2.0', false), null, 'a runtime without zlib.crc32 is refused whatever it says');
  assert.equal(unsupportedNode(), null, `this Node (${process.versions.node}) runs the journal`);
});
