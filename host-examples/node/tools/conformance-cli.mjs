// Usage: host-examples/node/conformance DIR
// Runs every *.json vector file in DIR (formats 1 and 2) through the npm
// package's public API, plain and compiled, and prints one
// line per failing case, then `node: N passed, M failed`. Exit 1 on any
// failure (or when DIR holds no case at all), 2 on bad usage.
import fs from 'node:fs';
import { runDir, PURE, compiledImpl } from './conformance-runner.mjs';

const dir = process.argv[2];
if (process.argv.length !== 3 || !fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
  console.error('usage: conformance DIR   (a directory of *.json vector files)');
  process.exit(2);
}
// A case passes when both the plain functions and the compiled policy (the
// fast path a RetryPolicy takes) give its `expect`.
const { passed, failed, failures } = runDir(dir, [PURE, compiledImpl()]);
for (const f of failures) console.log(`FAIL ${f.file} :: ${f.name}: ${f.why}`);
console.log(`node: ${passed} passed, ${failed} failed`);
if (passed + failed === 0) console.error(`conformance: no vector case found in ${dir}`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
