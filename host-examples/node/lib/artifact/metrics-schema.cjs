'use strict';
// The dispatcher's metrics schema as the artifact gives it (docs/metrics.md
// "The schema as data"): the component's `metrics-schema` JSON text, read
// into frozen families. Nothing is decided here: names, help texts, label
// values and buckets are the component's; a text this host cannot read (not
// JSON, another format, a field of the wrong type) is an ArtifactError.
const { ArtifactError } = require('../errors.cjs');

const FORMAT = 1;
const TYPES = ['counter', 'gauge', 'histogram'];
const MOVERS = ['engine', 'host'];

const isString = (v) => typeof v === 'string';

function refuse(where, what) {
  return new ArtifactError('artifact_invalid', `metrics-schema: ${where} is not ${what}`);
}

function label(l, where) {
  if (typeof l !== 'object' || l === null || !isString(l.name)) throw refuse(`${where}.name`, 'a string');
  const { values } = l;
  if (values !== null && !(Array.isArray(values) && values.every(isString))) throw refuse(`${where}.values`, 'null or a list of strings');
  return Object.freeze({ name: l.name, values: values === null ? null : Object.freeze([...values]) });
}

function family(f, i) {
  const where = `families[${i}]`;
  if (typeof f !== 'object' || f === null) throw refuse(where, 'an object');
  for (const field of ['name', 'help']) if (!isString(f[field])) throw refuse(`${where}.${field}`, 'a string');
  if (!TYPES.includes(f.type)) throw refuse(`${where}.type`, `one of ${TYPES.join(', ')}`);
  if (!MOVERS.includes(f.moved_by)) throw refuse(`${where}.moved_by`, `one of ${MOVERS.join(', ')}`);
  if (!Array.isArray(f.labels)) throw refuse(`${where}.labels`, 'a list');
  if (!(Array.isArray(f.buckets_s) && f.buckets_s.every(Number.isFinite))) throw refuse(`${where}.buckets_s`, 'a list of numbers');
  return Object.freeze({
    name: f.name,
    type: f.type,
    help: f.help,
    labels: Object.freeze(f.labels.map((l, j) => label(l, `${where}.labels[${j}]`))),
    buckets_s: Object.freeze([...f.buckets_s]),
    moved_by: f.moved_by,
  });
}

/** The families of `text` (the component's `metrics-schema`), frozen, in its order; throws ArtifactError. */
function parseMetricsSchema(text) {
  let schema;
  try {
    schema = JSON.parse(text);
  } catch (e) {
    throw new ArtifactError('artifact_invalid', `metrics-schema: not JSON (${e.message})`);
  }
  if (typeof schema !== 'object' || schema === null) throw refuse('the schema', 'an object');
  if (schema.format !== FORMAT) throw refuse('format', `${FORMAT} (this host reads format ${FORMAT}; got ${JSON.stringify(schema.format)})`);
  if (!Array.isArray(schema.families)) throw refuse('families', 'a list');
  const families = schema.families.map(family);
  const twice = families.find((f, i) => families.findIndex((g) => g.name === f.name) !== i);
  if (twice !== undefined) throw new ArtifactError('artifact_invalid', `metrics-schema: family ${twice.name} is listed twice`);
  return Object.freeze(families);
}

module.exports = { parseMetricsSchema };
