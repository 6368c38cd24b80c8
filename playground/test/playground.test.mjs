// Drive the built playground in headless Chromium (Debian's, through
// playwright-core; no browser is downloaded): load it, read the numbers,
// change inputs, check the numbers move and the charts redraw, and save PNG
// screenshots to a directory it prints. Then run the page's own tools on
// every shipped scenario: the same numbers as the tools export in Node and
// as `retry-policy simulate --format json` (the component).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { root, noBrowser, noCli, runCli, withPage, POLICY, SCENARIOS } from './shared.mjs';

const shots = process.env.PLAYGROUND_SHOTS ?? mkdtempSync(join(tmpdir(), 'playground-shots-'));
mkdirSync(shots, { recursive: true });

test('the playground lints, plans and simulates with the tools export, and redraws when inputs change', { skip: noBrowser, timeout: 120000 }, async () => {
  await withPage(async (page, { errors, external }) => {
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
    const svg = (id) => page.locator(`#${id} svg`).innerHTML();

    // Lint: the design note's 2 h and 24 h classes are cut by hard_cap 16.
    const rules = await page.$$eval('#findings li', (lis) => lis.map((li) => `${li.className} ${li.querySelector('code').textContent} ${li.dataset.rule}`));
    assert.ok(rules.includes('error classes.provisioning.hard_cap hard_cap_cuts_schedule'), rules.join('\n'));
    assert.ok(rules.includes('error classes.ledger.hard_cap hard_cap_cuts_schedule'), rules.join('\n'));
    assert.match(await text('lint-summary'), /3 classes, 2 errors/);
    // Schedule: the notification class has 13 attempts; the chart has its three lines' legend.
    assert.match(await page.locator('#schedule-chart svg').textContent(), /notification \(13 attempts, limited by window\)/);
    for (const name of ['window', 'expected', 'worst case']) assert.match(await page.locator('#schedule-chart svg').textContent(), new RegExp(name));
    assert.match(await text('plan-line'), /^13 attempts, limited by window: expected span /);
    // Storm at 10%: a flood of retry_budget_exhausted, share near the ratio.
    const before = { retries: await num('sum-retries'), budget: await num('sum-retry_budget_exhausted'), share: await text('sum-share') };
    assert.ok(before.budget > 2000, JSON.stringify(before));
    assert.ok(parseFloat(before.share) < 15, JSON.stringify(before));
    assert.match(await page.locator('#stops-chart svg').textContent(), /retry_budget_exhausted/);
    const share = await svg('share-chart');
    await page.screenshot({ path: join(shots, '1-loaded.png'), fullPage: true });

    // Raise the ratio: many more retries, the share follows it, the share chart redraws.
    let n = await runs();
    await page.fill('#ratio', '0.5');
    await redrawn(n);
    const after = { retries: await num('sum-retries'), share: await text('sum-share') };
    assert.ok(after.retries > 2 * before.retries, JSON.stringify({ before, after }));
    assert.ok(parseFloat(after.share) > 40, JSON.stringify({ before, after }));
    assert.notEqual(await svg('share-chart'), share);
    assert.match(await page.locator('#share-chart svg').textContent(), /ratio 0\.5/);
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
    assert.match(await page.locator('#schedule-chart svg').textContent(), /provisioning \(55 attempts, limited by window\)/);
    await page.screenshot({ path: join(shots, '4-edited-document-fixed-windows.png'), fullPage: true });

    // A document that is not JSON: one unreadable finding, the page stays up.
    n = await runs();
    await page.fill('#doc', '{ "classes": ');
    await page.waitForTimeout(600);
    assert.match(await page.locator('#findings li.error').first().textContent(), /^unreadable: /);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, [], 'the page fetched nothing from outside');
    console.log(`playground screenshots: ${shots}`);
  });
});

test('a document with health lints, diffs against the design note and runs the format 2 vs health comparison in the page', { skip: noBrowser, timeout: 120000 }, async () => {
  await withPage(async (page, { errors, external }) => {
    const text = (id) => page.locator(`#${id}`).textContent();
    const rules = () => page.$$eval('#findings li', (lis) => lis.map((li) => `${li.className} ${li.querySelector('code').textContent} ${li.dataset.rule}`));
    // Format 2 first: the diff against the design note is empty.
    assert.match(await text('diff'), /0 of 3 classes change/);
    // The format-3 preset: a document-wide section, the ledger opting out.
    await page.selectOption('#preset', 'health');
    await page.waitForFunction(() => document.getElementById('diff').dataset.health > 0);
    assert.ok((await rules()).includes('info classes.ledger.health health_class_opts_out'), (await rules()).join('\n'));
    const diff = await text('diff');
    assert.match(diff, /notification: changed\n  health {27}none \(format 2\) -> section\n {35}=> events are held, not dropped/);
    assert.match(diff, /ledger: unchanged/);
    // A bad section: the engine's refusal at its path; the page stays up.
    const doc = JSON.parse(await page.inputValue('#doc'));
    doc.health.release.multiple = 0;
    await page.fill('#doc', JSON.stringify(doc, null, 2));
    await page.waitForFunction(() => [...document.querySelectorAll('#findings li')].some((li) => li.querySelector('code').textContent === 'health.release.multiple'));
    assert.ok((await rules()).includes('error health.release.multiple invalid_document'), (await rules()).join('\n'));
    assert.match(await text('diff'), /^refused: invalid_document /);
    // A 1x release and a pause as long as the window: lint says why.
    doc.health.release.multiple = 1;
    doc.health.pause.max_ms = 900000;
    await page.fill('#doc', JSON.stringify(doc, null, 2));
    await page.waitForFunction(() => [...document.querySelectorAll('#findings li')].some((li) => li.dataset.rule === 'health_pause_outlives_window'));
    const r = await rules();
    assert.ok(r.includes('warning health.release.multiple health_release_cannot_drain'), r.join('\n'));
    assert.ok(r.includes('warning health.pause.max_ms health_pause_outlives_window'), r.join('\n'));
    assert.match(await text('diff'), /health\.release\.multiple +- -> 1\n/);
    // The comparison: an outage 60..240 s at 2/s, the notification class with the document's section.
    doc.health.pause.max_ms = 600000;
    doc.health.release.multiple = 3;
    await page.fill('#doc', JSON.stringify(doc, null, 2));
    await page.selectOption('#pattern', 'outage');
    await page.fill('#rate', '2');
    await page.waitForTimeout(400);
    await page.check('#compare');
    await page.waitForFunction(() => Number(document.body.dataset.compares) > 0, null, { timeout: 30000 });
    assert.match(await text('compare-status'), /^the document's health sections; store calls: format 2 \d+, health \d+/);
    const rows = await page.$$eval('#compare-rows tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    const row = (name) => rows.find((x) => x[0] === name);
    assert.ok(row('outage arrivals delivered'), JSON.stringify(rows));
    assert.ok(parseFloat(row('outage arrivals delivered')[2]) > parseFloat(row('outage arrivals delivered')[1]), JSON.stringify(rows));
    const goals = await page.$$eval('#goals li', (lis) => lis.map((li) => `${li.className} ${li.textContent}`));
    assert.ok(goals.some((g) => /^met \[met\] ep: outage arrivals delivered/.test(g)), goals.join('\n'));
    const chart = await page.locator('#health-chart svg').textContent();
    for (const t of ['requests/s', 'events held', 'format 2', 'health']) assert.ok(chart.includes(t), t);
    await page.screenshot({ path: join(shots, '5-health-compare.png'), fullPage: true });
    // The ledger opts out: its comparison runs the default section and says so.
    const k = Number(await page.evaluate(() => document.body.dataset.compares));
    await page.selectOption('#class', 'ledger');
    await page.waitForFunction((k) => Number(document.body.dataset.compares) > k, k, { timeout: 30000 });
    assert.match(await text('compare-status'), /^ledger opts out \("health": null\): the document plus a default health section;/);
    assert.deepEqual(errors, []);
    assert.deepEqual(external, []);
  });
});

test('the playground, the tools export and retry-policy simulate give the same numbers for every shipped scenario', { skip: noBrowser || noCli, timeout: 120000 }, async () => {
  const tools = await import(join(root, 'host-examples', 'node', 'lib', 'tools', 'index.mjs'));
  await withPage(async (page, { errors }) => {
    for (const sc of SCENARIOS) {
      const opts = { policyPath: POLICY.path, scenarioPath: sc.path };
      const inPage = await page.evaluate(([p, s, o]) => globalThis.playgroundTools.simulate(p, s, o), [POLICY.text, sc.text, opts]);
      const cli = JSON.parse(runCli(['simulate', '--policy', POLICY.path, '--scenario', sc.path, '--format', 'json']));
      assert.deepEqual(inPage, cli, `${sc.path}: the page vs the CLI`);
      assert.deepEqual(tools.simulate(POLICY.text, sc.text, opts), inPage, `${sc.path}: Node vs the page`);
      const events = cli.runs.flatMap((r) => r.endpoints).reduce((a, e) => a + e.events, 0);
      console.log(`${sc.path}: ${cli.runs.length} variants, ${events} events, ${cli.runs.reduce((a, r) => a + r.engine_calls, 0)} engine calls: identical in the page, in Node and in the CLI`);
      if (sc.path.includes('health-')) {
        // The comparison too: the page's compareHealth is Node's, and its text the CLI's.
        const cmp = await page.evaluate(([p, s, o]) => globalThis.playgroundTools.compareHealth(p, s, o), [POLICY.text, sc.text, { ...opts, charts: true }]);
        assert.deepEqual(cmp, tools.compareHealth(POLICY.text, sc.text, { ...opts, charts: true }), `${sc.path}: compareHealth, Node vs the page`);
        const text = runCli(['simulate', '--policy', POLICY.path, '--scenario', sc.path, '--compare-health']);
        assert.equal(cmp.text, text.split('\n').filter((l) => !l.startsWith('two runs in ')).join('\n'), `${sc.path}: compareHealth, the page vs the CLI`);
        console.log(`${sc.path}: format 2 vs health, ${cmp.goals.length} goals (${cmp.goals.filter((g) => g.met).length} met): identical in the page, in Node and in the CLI`);
      }
    }
    assert.deepEqual(errors, []);
  });
});
