// Build the static playground into playground/dist/:
//   * vendor/tools/: the npm package's tools export for the browser, copied
//     unchanged from host-examples/node/lib/tools (browser.mjs, and the
//     wasm-bindgen glue and wasm that scripts/build-tools wrote in wasm/);
//   * the page (index.html, src/app.js, style.css).
// No bundler, no CDN, nothing fetched from outside: the page imports the
// package's own ES modules.
import { readFileSync, mkdirSync, copyFileSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const lib = process.env.RETRY_POLICY_TOOLS_LIB ?? join(here, '..', 'host-examples', 'node', 'lib', 'tools');
const out = join(here, 'dist');
const FILES = ['browser.mjs', 'wasm/retry_policy_tools.mjs', 'wasm/retry_policy_tools_bg.wasm'];
const missing = FILES.filter((f) => !existsSync(join(lib, f)));
if (missing.length) {
  console.error(`playground: ${missing.map((f) => join(lib, f)).join(', ')} missing; run host-examples/node/scripts/build-tools`);
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'vendor', 'tools', 'wasm'), { recursive: true });
mkdirSync(join(out, 'src'), { recursive: true });
for (const f of FILES) copyFileSync(join(lib, f), join(out, 'vendor', 'tools', f));
for (const f of ['index.html', 'style.css']) copyFileSync(join(here, f), join(out, f));
for (const f of readdirSync(join(here, 'src'))) copyFileSync(join(here, 'src', f), join(out, 'src', f));
const size = (f) => readFileSync(join(lib, f)).length;
console.log(`playground: built ${out} (tools wasm ${size(FILES[2])} bytes, glue ${size(FILES[1])} bytes)`);
