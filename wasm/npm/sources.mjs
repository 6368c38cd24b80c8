// The digest of everything the tools build (wasm/npm) is made from: the
// crate, tools/policy-tools and policy-core (their Cargo.toml and src/), and
// the crate's Cargo.lock. sha256 over each file, sorted by path: the path, a
// NUL, the bytes, a NUL. scripts/build-tools writes it next to the wasm
// (lib/tools/wasm/SOURCES); playground/test/tools.test.mjs recomputes it and
// fails when the built wasm is stale.
//   node wasm/npm/sources.mjs        prints the hex digest
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const INPUTS = ['wasm/npm/Cargo.toml', 'wasm/npm/Cargo.lock', 'wasm/npm/src', 'tools/policy-tools/Cargo.toml',
  'tools/policy-tools/src', 'policy-core/Cargo.toml', 'policy-core/src'];

function walk(path, out) {
  if (statSync(path).isDirectory()) for (const f of readdirSync(path)) walk(join(path, f), out);
  else out.push(relative(root, path).split('\\').join('/'));
  return out;
}

export function sourcesDigest() {
  const files = INPUTS.flatMap((p) => walk(join(root, p), [])).sort();
  const h = createHash('sha256');
  for (const f of files) h.update(f).update('\0').update(readFileSync(join(root, f))).update('\0');
  return h.digest('hex');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(sourcesDigest());
