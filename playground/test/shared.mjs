// What the playground's tests share: paths, the CLI, the shipped scenarios,
// and a headless Chromium (Debian's, through playwright-core; no browser is
// downloaded) on the built page.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
export const dist = join(here, '..', 'dist');
export const cli = process.env.RETRY_POLICY_BIN ?? join(root, 'target', 'release', 'retry-policy');
export const browserPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const noCli = !existsSync(cli) && `no ${cli} (cargo build --release -p retry-policy-host)`;
export const noBrowser = !existsSync(browserPath) ? `no ${browserPath} (apt-get install -y chromium)`
  : !existsSync(join(dist, 'index.html')) ? 'playground not built (scripts/playground --build-only)' : false;

/** The policy every shipped scenario runs on, and the scenarios: [{path, text}], paths relative to the root. */
export const POLICY = { path: 'scenarios/design-note.toml', text: readFileSync(join(root, 'scenarios', 'design-note.toml'), 'utf8') };
export const SCENARIOS = readdirSync(join(root, 'scenarios'))
  .filter((f) => f.endsWith('.toml') && f !== 'design-note.toml')
  .sort()
  .map((f) => ({ path: `scenarios/${f}`, text: readFileSync(join(root, 'scenarios', f), 'utf8') }));

/** Run the CLI from the root; exit 1 (lint errors, diff changes) still returns its output. */
export function runCli(args) {
  try {
    return execFileSync(cli, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 << 20 });
  } catch (e) {
    if (e.status === 1) return e.stdout;
    throw new Error(`${cli} ${args.join(' ')}: exit ${e.status}: ${e.stderr}`);
  }
}

/** Serve dist/, open it in headless Chromium, wait for the page, run `body(page, origin)`. */
export async function withPage(body) {
  const { chromium } = await import('playwright-core');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const server = await serve(dist, 0);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'playground-chromium-')), {
    executablePath: browserPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1360, height: 1400 },
  });
  try {
    const page = await ctx.newPage();
    const errors = [];
    const external = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => { if (!r.url().startsWith(`${origin}/`)) external.push(r.url()); });
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true' || document.body.dataset.error, null, { timeout: 30000 });
    const failed = await page.evaluate(() => document.body.dataset.error);
    if (failed) throw new Error(`the page failed to start: ${failed}`);
    return await body(page, { errors, external });
  } finally {
    await ctx.close();
    server.close();
  }
}
