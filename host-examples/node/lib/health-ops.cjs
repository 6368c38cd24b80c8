'use strict';
// ABI 0.3's plain functions (format 3, docs/health.md), each ONE call into
// the current artifact: apply-call (an in-memory store's rule, formats 2
// and 3), load-health-document, pace, normal-per-s, health-outcome-of,
// pause-until; and compileDocument, a format-3 document's classes compiled.
const { plain } = require('./snapshot.cjs');
const lower = require('./lower.cjs');
const shapes = require('./health-shapes.cjs');
const { call, STEP_PATHS } = require('./call.cjs');
const { artifact } = require('./artifact/current.cjs');
const { documentText } = require('./document.cjs');
const { fromLowered } = require('./compiled.cjs');

const arg = (v, path) => plain(v, path);
const zero = Object.freeze({ total: 0, retries: 0 });

/** What an in-memory store holds for a key it has never seen. */
const EMPTY_HELD_HEALTH = Object.freeze({
  buckets: Object.freeze({ bucket: 0, current: zero, previous: zero }),
  health: Object.freeze({
    failures: Object.freeze({ bucket: 0, current: 0, previous: 0 }),
    paused_until_ms: 0,
    opened_at_ms: 0,
    cooldown_ms: 0,
    probe_window: 0,
    probes_granted: 0,
    closed_at_ms: 0,
  }),
});

/** An in-memory store's answer to a store call on what it `held` for the call's key: `{reply, held}`. */
const applyCall = (storeCall, nowMs, held) => {
  const c = shapes.storeCall(arg(storeCall, 'call'), 'call');
  const now = lower.u64(arg(nowMs, 'now_ms'), 'now_ms');
  const h = shapes.heldHealth(arg(held, 'held'), 'held');
  return shapes.callAppliedOut(call((api) => api.applyCall(c, now, h)));
};

const loadRaw = (document) => {
  const text = documentText(document);
  return call((api) => api.loadHealthDocument(text));
};

/** A format-3 document (object or JSON text): `{version, classes: [{name, policy, health, policy_hash, hash_words}]}`. */
const loadHealthDocument = (document) => shapes.healthDocumentOut(loadRaw(document));

/**
 * A format-3 document's classes, each compiled once: `{version, classes:
 * Map<name, CompiledPolicy>}` (each also `{policyHash}` via `hashes`).
 * close() releases every class's handles.
 */
function compileDocument(document) {
  const doc = loadRaw(document);
  const classes = new Map();
  const hashes = new Map();
  try {
    for (const c of doc.classes) {
      classes.set(c.name, fromLowered(c.policy, c.health));
      hashes.set(c.name, c.policyHash);
    }
  } catch (e) {
    for (const p of classes.values()) p.close();
    throw e;
  }
  const close = () => {
    for (const p of classes.values()) p.close();
  };
  return { version: doc.version, classes, hashes, close, [Symbol.dispose ?? Symbol.for('Symbol.dispose')]: close };
}

/** Release pacing alone: `{verdict: {action: send} | {action: wait, value}, pacer}`. */
const pace = (release, pacer, nowMs) => {
  const r = shapes.release(arg(release, 'release'), 'release');
  const p = shapes.pacer(arg(pacer, 'pacer'), 'pacer');
  const now = lower.u64(arg(nowMs, 'now_ms'), 'now_ms');
  return shapes.pacedOut(call((api) => api.pace(r, p, now)));
};

/** A replica's admission rate to an endpoint (per second) from its two newest buckets of admissions. */
const normalPerS = (budget, nowMs, current, previous) => {
  const b = lower.budget(arg(budget, 'budget'), 'budget');
  const now = lower.u64(arg(nowMs, 'now_ms'), 'now_ms');
  const c = lower.u64(arg(current, 'current'), 'current');
  const p = lower.u64(arg(previous, 'previous'), 'previous');
  return call((api) => api.normalPerS(b, now, c, p));
};

/** The health class of an outcome: 'success' | 'failure' | 'none'. */
const healthOutcome = (outcome) => {
  const o = lower.outcome(arg(outcome, 'outcome'), 'outcome');
  return call((api) => api.healthOutcomeOf(o), artifact(), STEP_PATHS);
};

/** When the pause an outcome asks for ends (0: none). */
const pauseUntil = (health, outcome, nowMs) => {
  const h = shapes.health(arg(health, 'health'), 'health');
  const o = lower.outcome(arg(outcome, 'outcome'), 'outcome');
  const now = lower.u64(arg(nowMs, 'now_ms'), 'now_ms');
  return lower.n(call((api) => api.pauseUntil(h, o, now)));
};

/**
 * The current artifact's embedded document (docs/artifact.md, step 6), as
 * its load-health-document read it: `{text, hasHealth, document}` (document:
 * loadHealthDocument's shape, health sections included), or null when it
 * embeds none.
 */
function embeddedDocument() {
  const a = artifact();
  if (a.healthDocument === null) return null;
  return { text: a.documentText, hasHealth: a.hasHealth, document: shapes.healthDocumentOut(a.healthDocument) };
}

module.exports = { applyCall, loadHealthDocument, embeddedDocument, compileDocument, pace, normalPerS, healthOutcome, pauseUntil, EMPTY_HELD_HEALTH };
