// Usage: host-examples/node/conformance DIR
// Runs every *.json vector file in DIR (formats 1, 2 and 3, engine traces)
// through the component (conformance-runner.mjs: the package's functions,
// else the component's `vector-case`) on the artifact RETRY_POLICY_ARTIFACT
// names (else the package's copy), and prints one
// line per failing case, then `node: N passed, M failed`. Exit 1 on any
// failure (a refused artifact included, or when DIR holds no case at all),
// 2 on bad usage.
import fs from 'node:fs';
import * as api from '@webhook/retry-policy';
import { runDir } from './conformance-runner.mjs';

const dir = process.argv[2];
if (process.argv.length !== 3 || !fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
  console.error('usage: conformance DIR   (a directory of *.json vector files)');
  process.exit(2);
}
// The artifact first: one that cannot be loaded is one error, not 945.
try {
  const info = api.artifactInfo();
  // The embedded document (format 2 or 3) as the loader read it: its version and health classes.
  const embedded = api.embeddedDocument();
  const doc = embedded === null ? '' : ` document_version=${embedded.document.version}` +
    ` health_classes=${embedded.document.classes.filter((c) => c.health !== null).map((c) => c.name).join(',')}`;
  console.error(`node: artifact sha256=${info.sha256} source=${info.source}${doc}`);
} catch (e) {
  // A refused artifact fails the run (1), as in the other hosts' runners; 2 is bad usage.
  console.error(`node: ${e.message}`);
  console.log('node: 0 passed, 1 failed');
  process.exit(1);
}
const { passed, failed, failures } = runDir(dir);
for (const f of failures) console.log(`FAIL ${f.file} :: ${f.name}: ${f.why}`);
console.log(`node: ${passed} passed, ${failed} failed`);
if (passed + failed === 0) console.error(`conformance: no vector case found in ${dir}`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
