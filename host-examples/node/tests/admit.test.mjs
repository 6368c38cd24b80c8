// `admit` (lib/document.cjs, RetryPolicy#admit's path) hands the
// component's `admit` a document of the admitted class alone (lowering one
// class per event, not the whole document) and answers exactly as `admit`
// of the whole document: the same admission for every class of documents
// built from the vectors' policies, the same error for a class the
// document lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Artifact } = require('../lib/artifact/load.cjs');
const { loadDocument, admit } = require('../lib/document.cjs');
const { call } = require('../lib/call.cjs');
const lower = require('../lib/lower.cjs');

const VECTORS = new URL('../../../tests/vectors/', import.meta.url);
const POLICY_JSON = fs.readFileSync(new URL('../../policy.json', import.meta.url), 'utf8');

/** admit of the whole document lowered, one call. */
function oldAdmit(doc, eventClass, nowMs) {
  const now = lower.u64(nowMs, 'now_ms');
  return lower.admissionOut(call((api) => api.admit(doc, eventClass, now)));
}

function answer(f) {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: [e.code, e.field, e.message] };
  }
}

function vectorPolicies() {
  const out = [];
  for (const name of ['step.json', 'random-step.json', 'decide.json', 'random-decide.json']) {
    for (const c of JSON.parse(fs.readFileSync(new URL(name, VECTORS), 'utf8')).cases) {
      const p = c.input.policy;
      if (p !== undefined && !out.some((q) => JSON.stringify(q) === JSON.stringify(p))) out.push(p);
    }
  }
  return out;
}

/** The component functions `f` calls, `[name, args]` (each instance's api seen through one stable proxy). */
function componentFunctions(f) {
  const original = Artifact.prototype.run;
  const names = [];
  const proxies = new WeakMap();
  const spy = (api) => {
    let p = proxies.get(api);
    if (p === undefined) {
      p = new Proxy(api, {
        get(target, key) {
          const v = Reflect.get(target, key);
          if (typeof v !== 'function') return v;
          return (...args) => {
            names.push([key, args]);
            return v.apply(target, args);
          };
        },
      });
      proxies.set(api, p);
    }
    return p;
  };
  Artifact.prototype.run = function run(g) {
    return original.call(this, (api) => g(spy(api)));
  };
  try {
    f();
    return names;
  } finally {
    Artifact.prototype.run = original;
  }
}

test('admit answers as the whole-document admit for every class of documents from the vectors', () => {
  const policies = vectorPolicies();
  assert.ok(policies.length > 20);
  let admitted = 0;
  for (let n = 0; n < policies.length; n += 4) {
    const chunk = policies.slice(n, n + 4);
    const text = JSON.stringify({ version: `v${n}`, classes: Object.fromEntries(chunk.map((p, i) => [`c${i}`, p])) });
    let doc;
    try {
      doc = loadDocument(text);
    } catch {
      continue;
    }
    for (let i = 0; i < chunk.length; i++) {
      for (const now of [0, 1_799_126_466_327, 2n ** 64n - 6n]) {
        const got = answer(() => admit(doc, `c${i}`, now));
        assert.deepEqual(got, answer(() => oldAdmit(doc, `c${i}`, now)), `document ${n} class c${i} at ${now}`);
        if (got.ok) admitted += 1;
      }
    }
  }
  assert.ok(admitted > 60, `${admitted} admitted`);
});

test('an unknown class is the same unknown_event_class as before', () => {
  const doc = loadDocument(POLICY_JSON);
  const got = answer(() => admit(doc, 'billing', 7));
  assert.deepEqual(got, answer(() => oldAdmit(doc, 'billing', 7)));
  assert.equal(got.error[0], 'unknown_event_class');
  assert.equal(got.error[1], 'class');
});

test('admit is one component admit per event, handed the admitted class alone', () => {
  const doc = loadDocument(POLICY_JSON);
  assert.ok(doc.classes.length >= 3);
  const names = ['notification', 'provisioning', 'ledger'];
  const calls = componentFunctions(() => {
    for (let i = 0; i < 30; i++) admit(doc, names[i % 3], i);
  });
  assert.equal(calls.length, 30, calls.map(([n]) => n).join(' '));
  calls.forEach(([name, [arg, eventClass]], i) => {
    assert.equal(name, 'admit');
    assert.equal(eventClass, names[i % 3]);
    assert.deepEqual(arg, { version: doc.version, classes: [doc.classes.find((c) => c.name === eventClass)] });
  });
});
