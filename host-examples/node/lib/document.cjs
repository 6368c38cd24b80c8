'use strict';
// Policy documents through the component: `load-document` and `admit`
// (format 2), `load-health-document` (format 3: format 2 with optional
// `health` sections). A document object or its JSON text in, the
// component's validated value out.
const { PolicyError } = require('./errors.cjs');
const { plain, plainDocument } = require('./snapshot.cjs');
const lower = require('./lower.cjs');
const { call } = require('./call.cjs');
const { artifact } = require('./artifact/current.cjs');

/** JSON text of plain data, bigints written as JSON integers. */
function jsonText(value) {
  const marks = [];
  const text = JSON.stringify(value, (_k, v) => {
    if (typeof v !== 'bigint') return v;
    marks.push(v.toString());
    return `\u0000${marks.length - 1}\u0000`;
  });
  return marks.length === 0 ? text : text.replace(/"\\u0000(\d+)\\u0000"/g, (_m, i) => marks[Number(i)]);
}

/**
 * A document's JSON text: a string as it is, an object copied (plainDocument:
 * read once, its depth left to the component) and written out. Only what
 * is not data at all is refused here (`invalid_document` at its path); every
 * rule of the document itself is the component's.
 */
function documentText(document) {
  if (typeof document === 'string') return document;
  let text;
  try {
    text = jsonText(plainDocument(document));
  } catch (e) {
    // A document that is not data at all is a malformed document.
    if (e instanceof PolicyError && e.code === 'invalid_input') throw new PolicyError('invalid_document', e.field, e.detail);
    throw e;
  }
  if (text === undefined) throw new PolicyError('invalid_document', '', 'expected a document object or its JSON text');
  return text;
}

/** A document (object or JSON text), validated by the component: the policy-document value. */
function loadDocument(document, on) {
  const text = documentText(document);
  return call((api) => api.loadDocument(text), on);
}

/**
 * The admission of a new event of `eventClass` at `nowMs` under `doc` (a
 * loaded document). The component's `admit` reads only the class it admits
 * and the version, so it is handed a document of that one class (lowering
 * the whole document every event would cost in proportion to its size); a
 * class the document lacks is handed the whole document, so its
 * `unknown_event_class` names the classes defined.
 */
function admit(doc, eventClass, nowMs) {
  const c = lower.str(plain(eventClass, 'class'), 'class');
  const now = lower.u64(nowMs, 'now_ms');
  const one = doc.classes.find((k) => k.name === c);
  const arg = one === undefined ? doc : { version: doc.version, classes: [one] };
  return lower.admissionOut(call((api) => api.admit(arg, c, now)));
}

/** The class `name`'s policy (component shape) in `doc`, or undefined. */
const classPolicy = (doc, name) => doc.classes.find((c) => c.name === name)?.policy;

/** A format-3 document (object or JSON text): `{version, classes: [{name, policy, health, policy_hash, hash_words}]}`. */
function loadHealthDocument(document) {
  const text = documentText(document);
  return healthDocumentOut(call((api) => api.loadHealthDocument(text)));
}

/**
 * The current artifact's embedded document (docs/artifact.md, step 6), as
 * its load-health-document read it: `{text, hasHealth, document}` (document:
 * loadHealthDocument's shape, health sections included), or null when it
 * embeds none.
 */
function embeddedDocument() {
  const a = artifact();
  if (a.healthDocument === null) return null;
  return { text: a.documentText, hasHealth: a.hasHealth, document: healthDocumentOut(a.healthDocument) };
}

const { n } = lower;

const circuitOut = (c) => ({
  failure_ratio: c.failureRatio,
  min_sample: n(c.minSample),
  cooldown_ms: n(c.cooldownMs),
  cooldown_max_ms: n(c.cooldownMaxMs),
  probes: c.probes,
  probe_interval_ms: n(c.probeIntervalMs),
});

const healthOut = (h) => ({
  hold_budget_refusals: h.holdBudgetRefusals,
  pause_max_ms: n(h.pauseMaxMs),
  circuit: h.circuit === undefined ? null : circuitOut(h.circuit),
  release: { multiple: h.release.multiple, floor_per_s: h.release.floorPerS },
  cache_ms: n(h.cacheMs),
});

/** The component's health-document in the contract's shape. */
const healthDocumentOut = (d) => ({
  version: d.version,
  classes: d.classes.map((c) => ({
    name: c.name,
    policy: lower.policyOut(c.policy),
    health: c.health === undefined ? null : healthOut(c.health),
    policy_hash: c.policyHash,
    hash_words: Array.from(c.hashWords, n),
  })),
});

module.exports = { loadDocument, admit, classPolicy, jsonText, documentText, loadHealthDocument, embeddedDocument };
