// npm's `prepack` (npm pack, npm publish, an install from git): make lib/
// hold everything the package's exports need, or refuse with one clear line.
//   1. lib/fleet/budget.lua: copied from the repository's fleet/ (never
//      committed here; RedisBudgetStore reads the script);
//   2. lib/tools/wasm/ (the `tools` export): built by scripts/build-tools
//      when missing or built from other sources than these (wasm/npm's
//      SOURCES digest); that needs cargo with the wasm32-unknown-unknown
//      target, and it installs wasm-bindgen-cli on first use;
//   3. every file package.json's `main`, `types` and `exports` name exists.
// Outside the repository (no ../../fleet), lib/ must already be complete.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(pkg, '..', '..');
const TOOLS = join(pkg, 'lib', 'tools', 'wasm');
const TOOLS_FILES = ['retry_policy_tools_bg.wasm', 'retry_policy_tools.mjs', 'SOURCES'];

function refuse(message) {
  console.error(`prepack: ${message}`);
  process.exit(1);
}

function copyFleetFiles() {
  if (!existsSync(join(root, 'fleet', 'budget.lua'))) return; // not in the repository: checked in step 3
  mkdirSync(join(pkg, 'lib', 'fleet'), { recursive: true });
  copyFileSync(join(root, 'fleet', 'budget.lua'), join(pkg, 'lib', 'fleet', 'budget.lua'));
}

async function toolsAreCurrent() {
  if (!TOOLS_FILES.every((f) => existsSync(join(TOOLS, f)))) return false;
  const sources = join(root, 'wasm', 'npm', 'sources.mjs');
  if (!existsSync(sources)) return true; // not in the repository: nothing to compare with
  const { sourcesDigest } = await import(sources);
  return readFileSync(join(TOOLS, 'SOURCES'), 'utf8').trim() === sourcesDigest();
}

async function buildTools() {
  if (await toolsAreCurrent()) return;
  if (!existsSync(join(root, 'wasm', 'npm', 'Cargo.toml'))) {
    refuse('lib/tools/wasm/ is missing (the `tools` export) and this is not a checkout of the repository to build it from');
  }
  console.error('prepack: lib/tools/wasm/ is missing or stale; running scripts/build-tools');
  // Its output goes to stderr: stdout is npm's (`npm pack --json` prints the file list there).
  const r = spawnSync(join(pkg, 'scripts', 'build-tools'), { stdio: ['ignore', 2, 2] });
  if (r.status !== 0) {
    refuse('scripts/build-tools failed, so the `tools` export cannot be packed: it needs cargo with the ' +
      'wasm32-unknown-unknown target (rustup target add wasm32-unknown-unknown) and wasm-bindgen-cli 0.2.130 ' +
      '(it installs that itself); fix that and run npm pack again');
  }
  if (!(await toolsAreCurrent())) refuse('scripts/build-tools ran but lib/tools/wasm/ is still missing or stale');
}

function exportedFiles(manifest) {
  const out = new Set([manifest.main, manifest.types]);
  const walk = (v) => {
    if (typeof v === 'string') out.add(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(manifest.exports);
  return [...out].filter(Boolean);
}

copyFleetFiles();
await buildTools();
const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const needed = [...exportedFiles(manifest), './lib/retry_policy.wasm', './lib/component/glue.cjs',
  './lib/fleet/budget.lua', ...TOOLS_FILES.map((f) => `./lib/tools/wasm/${f}`)];
const missing = needed.filter((f) => !existsSync(join(pkg, f)));
if (missing.length > 0) refuse(`the package would miss ${missing.join(', ')}: run ./setup (or scripts/build-component) first`);
