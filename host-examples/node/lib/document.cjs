'use strict';
// Policy documents through the component's `load-document` and `admit`: a
// document object or its JSON text in, the component's validated
// policy-document value out.
const { PolicyError } = require('./errors.cjs');
const { plain, plainDocument } = require('./snapshot.cjs');
const lower = require('./lower.cjs');
const { call } = require('./call.cjs');
const { fromLowered } = require('./compiled.cjs');

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
 * loaded document). Through the compiled handle (`admit-compiled`): the
 * class's policy is compiled once per instance (compiledClass) and the
 * component copies the schedule and hash derived then, instead of lowering
 * the whole document each event; the admission is 0.2 `admit`'s. A class
 * the document lacks goes to 0.2 `admit`, so its `unknown_event_class` is
 * the one it always was.
 */
function admit(doc, eventClass, nowMs) {
  const c = lower.str(plain(eventClass, 'class'), 'class');
  const now = lower.u64(plain(nowMs, 'now_ms'), 'now_ms');
  const compiled = compiledClass(doc, c);
  if (compiled === undefined) return lower.admissionOut(call((api) => api.admit(doc, c, now)));
  return compiled.admit(c, doc.version, now);
}

// A loaded document -> Map(class name -> CompiledPolicy), the first class of
// a name. A loaded document is validated and never changed, so its classes
// compile; their handles go with the document (the finalizer releases them).
const compiledClasses = new WeakMap();

/** The CompiledPolicy of class `name` of the loaded document `doc` (compiled lazily, per instance), or undefined. */
function compiledClass(doc, name) {
  let classes = compiledClasses.get(doc);
  if (classes === undefined) {
    classes = new Map();
    for (const c of doc.classes) if (!classes.has(c.name)) classes.set(c.name, fromLowered(c.policy));
    compiledClasses.set(doc, classes);
  }
  return classes.get(name);
}

/** The class `name`'s policy (component shape) in `doc`, or undefined. */
function classPolicy(doc, name) {
  for (const c of doc.classes) if (c.name === name) return c.policy;
  return undefined;
}

module.exports = { loadDocument, admit, compiledClass, classPolicy, jsonText, documentText };
