// `admit` (lib/document.cjs, RetryPolicy#admit's path) runs on the compiled
// handle (`admit-compiled`, compiled once per class and instance) and
// answers exactly as 0.2's `admit` of the whole document: the same
// admission for every class of documents built from the vectors' policies,
// the same error for a class the document lacks.
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

/** 0.2's admit: the whole document lowered, one call. */
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

/** The component functions `f` calls, by name (each instance's api seen through one stable proxy). */
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
            names.push(key);
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

test('admit is one admit-compiled call per event once each class is compiled, never the whole-document admit', () => {
  const doc = loadDocument(POLICY_JSON);
  const names = componentFunctions(() => {
    for (let i = 0; i < 30; i++) admit(doc, ['notification', 'provisioning', 'ledger'][i % 3], i);
  });
  const count = (name) => names.filter((n) => n === name).length;
  assert.equal(count('admitCompiled'), 30);
  assert.equal(count('compile'), 3);
  assert.equal(count('admit'), 0);
  assert.equal(names.filter((n) => n !== 'discard').length, 33, names.join(' '));
});
