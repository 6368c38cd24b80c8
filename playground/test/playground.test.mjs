// Drive the built playground in headless Chromium (Debian's, through
// playwright-core; no browser is downloaded): load it, read the numbers,
// change inputs, check the numbers move and the charts redraw, and save
// PNG screenshots to a directory it prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const browser = process.env.CHROMIUM ?? '/usr/bin/chromium';
const shots = process.env.PLAYGROUND_SHOTS ?? mkdtempSync(join(tmpdir(), 'playground-shots-'));
mkdirSync(shots, { recursive: true });

const skip = !existsSync(browser) ? `no ${browser} (apt-get install -y chromium)` : !existsSync(join(dist, 'index.html')) ? 'playground not built (scripts/playground --build-only)' : false;

test('the playground lints, plans and simulates on the wasm, and redraws when inputs change', { skip, timeout: 120000 }, async () => {
  const server = await serve(dist, 0);
  const profile = mkdtempSync(join(tmpdir(), 'playground-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: browser,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1360, height: 1400 },
  });
  const external = [];
  try {
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => { if (!r.url().startsWith(`http://127.0.0.1:${server.address().port}/`)) external.push(r.url()); });
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.deepEqual(errors, []);
    const text = (id) => page.locator(`#${id}`).textContent();
    const num = async (id) => Number(await text(id));
    const runs = async () => Number(await page.evaluate(() => document.body.dataset.runs));
    // Wait until the page has redrawn at least once since `k` and then stayed quiet for 400 ms.
    const redrawn = async (k) => {
      await page.waitForFunction((k) => Number(document.body.dataset.runs) > k, k);
      for (let last = await runs(); ; ) {
        await page.waitForTimeout(400);
        const now = await runs();
        if (now === last) return;
        last = now;
      }
    };

    // Lint: the design note's 2 h and 24 h classes are cut by hard_cap 16.
    const rules = await page.$$eval('#findings li', (lis) => lis.map((li) => `${li.className} ${li.querySelector('code').textContent} ${li.dataset.rule}`));
    assert.ok(rules.includes('error classes.provisioning.hard_cap hard_cap_cuts_schedule'), rules.join('\n'));
    assert.ok(rules.includes('error classes.ledger.hard_cap hard_cap_cuts_schedule'), rules.join('\n'));
    assert.match(await text('lint-summary'), /3 classes, 2 errors/);
    // Schedule: the notification class has 13 attempts (3 lines: expected, worst case, window).
    assert.equal(await page.getAttribute('#schedule-svg', 'data-series'), '3');
    assert.match(await page.locator('#schedule-svg').textContent(), /13 attempts, limited by window/);
    // Storm at 10%: a flood of retry_budget_exhausted, share near the ratio.
    const before = { retries: await num('sum-retries'), budget: await num('sum-retry_budget_exhausted'), share: await text('sum-share') };
    assert.ok(before.budget > 2000, JSON.stringify(before));
    assert.ok(parseFloat(before.share) < 15, JSON.stringify(before));
    const sharePath = await page.getAttribute('#share-svg path.series', 'd');
    await page.screenshot({ path: join(shots, '1-loaded.png'), fullPage: true });

    // Raise the ratio: many more retries, the share follows it, the share chart redraws.
    let n = await runs();
    await page.fill('#ratio', '0.5');
    await redrawn(n);
    const after = { retries: await num('sum-retries'), share: await text('sum-share') };
    assert.ok(after.retries > 2 * before.retries, JSON.stringify({ before, after }));
    assert.ok(parseFloat(after.share) > 40, JSON.stringify({ before, after }));
    assert.notEqual(await page.getAttribute('#share-svg path.series', 'd'), sharePath);
    await page.screenshot({ path: join(shots, '2-ratio-0.5.png'), fullPage: true });

    // Back to 10%, 12 replicas with per-replica budgets at 3/s: the share overshoots.
    n = await runs();
    await page.fill('#ratio', '0.1');
    await page.fill('#rate', '3');
    await page.fill('#replicas', '12');
    await page.selectOption('#scope', 'per_replica');
    await redrawn(n);
    assert.ok(parseFloat(await text('sum-share')) > 40, await text('sum-share'));
    await page.screenshot({ path: join(shots, '3-12-per-replica.png'), fullPage: true });

    // Fixed windows: lint flags the sawtooth; edit the document: hard_cap 60 for provisioning.
    n = await runs();
    await page.selectOption('#scope', 'shared');
    await page.fill('#replicas', '1');
    await page.fill('#rate', '5');
    await page.uncheck('#sliding');
    await redrawn(n);
    const doc = JSON.parse(await page.inputValue('#doc'));
    doc.classes.provisioning.hard_cap = 60;
    doc.classes.notification.budget = { sliding: false };
    n = await runs();
    await page.fill('#doc', JSON.stringify(doc, null, 2));
    await redrawn(n);
    assert.match(await text('lint-summary'), /3 classes, 1 errors/);
    const rules2 = await page.$$eval('#findings li', (lis) => lis.map((li) => li.dataset.rule));
    assert.ok(rules2.includes('fixed_window_sawtooth'), rules2.join(' '));
    await page.selectOption('#class', 'provisioning');
    await page.waitForTimeout(300);
    assert.match(await page.locator('#schedule-svg').textContent(), /55 attempts, limited by window/);
    await page.screenshot({ path: join(shots, '4-edited-document-fixed-windows.png'), fullPage: true });
    assert.deepEqual(errors, []);
    assert.deepEqual(external, [], 'the page fetched nothing from outside');
    console.log(`playground screenshots: ${shots}`);
  } finally {
    await ctx.close();
    server.close();
  }
});
