// Turn jco's transpiled ESM glue (in DIR) into lib/component/glue.cjs:
// CommonJS, a GENERATED header, jco's two adapter modules embedded as base64,
// and three rewrites that make a call cheaper (scripts/faster-glue.cjs).
// Usage: node scripts/finish-glue.cjs DIR OUT   (called by scripts/generate-glue)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { faster } = require('./faster-glue.cjs');

const [dir, output] = process.argv.slice(2);
const src = fs.readFileSync(path.join(dir, 'retry_policy.js'), 'utf8');
const exported = 'export function instantiate(';
if (src.split(exported).length !== 2) throw new Error(`finish-glue: expected one \`${exported}\` in jco's output`);
const adapters = {};
for (const name of ['retry_policy.core2.wasm', 'retry_policy.core3.wasm']) {
  adapters[name] = fs.readFileSync(path.join(dir, name)).toString('base64');
}
// jco's glue decodes guest strings with `new TextDecoder()`, which drops a
// leading U+FEFF (BOM): an id that starts with one would come back changed
// (found by tests/fuzz-boundary.test.mjs; the canonical ABI round-trips
// strings exactly, as wasmtime, Go and Python do). Keep the BOM.
const decoder = 'const utf8Decoder = new TextDecoder();';
if (src.split(decoder).length !== 2) throw new Error(`finish-glue: expected one \`${decoder}\` in jco's output`);
const version = require('../node_modules/@bytecodealliance/jco/package.json').version;
const header =
  `// GENERATED - DO NOT EDIT. jco ${version} \`transpile --instantiation sync --no-wasi-shim\`\n` +
  '// of lib/retry_policy.wasm, made CommonJS; regenerate with\n' +
  '// host-examples/node/scripts/generate-glue (tests/glue.test.mjs fails when stale).\n' +
  "'use strict';\n";
const footer =
  '\n// jco\'s adapter modules (import trampolines), by the name `instantiate` asks for.\n' +
  `const ADAPTERS = ${JSON.stringify(adapters, null, 2)};\n` +
  'module.exports = { instantiate, ADAPTERS };\n';
const glue = faster(
  src.replace(exported, 'function instantiate(').replace(decoder, "const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });"),
);
fs.writeFileSync(output, header + glue + footer);
