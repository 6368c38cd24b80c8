// Post-process wasm-bindgen's --target nodejs glue for the package:
// drop its JSDoc blocks (documentation lives in lib/index.d.cts, and the
// blocks are a third of the file) and mark the file as generated.
// Usage: node scripts/finish-glue.cjs IN OUT
'use strict';
const fs = require('node:fs');

const [input, output] = process.argv.slice(2);
const src = fs.readFileSync(input, 'utf8');
const body = src
  .replace(/^\/\* @ts-self-types=.*\*\/\n/m, '')
  .replace(/^[ \t]*\/\*\*(?:(?!\*\/)[\s\S])*\*\/[ \t]*\n/gm, '');
const header =
  '// GENERATED — DO NOT EDIT. wasm-bindgen 0.2.130 glue for wasm/npm;\n' +
  '// regenerate with host-examples/node/scripts/build-wasm.\n';
fs.writeFileSync(output, header + body);
