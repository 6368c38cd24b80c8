'use strict';
// The dispatcher's metrics schema as the artifact gives it (docs/metrics.md
// "The schema as data"): the component's `metrics-schema`, typed by the
// generated glue ({name, type, help, labels: [{name, values}], bucketsS,
// movedBy}), frozen in this package's spelling (`buckets_s`, `moved_by`,
// `values` null for an open label). Nothing is decided or parsed here:
// names, help texts, label values and buckets are the component's.

const label = (l) => Object.freeze({ name: l.name, values: l.values === undefined ? null : Object.freeze([...l.values]) });

/** The families of the component's typed answer, frozen, in its order. */
function metricsSchemaOf(families) {
  return Object.freeze(families.map((f) => Object.freeze({
    name: f.name,
    type: f.type,
    help: f.help,
    labels: Object.freeze(f.labels.map(label)),
    buckets_s: Object.freeze([...f.bucketsS]),
    moved_by: f.movedBy,
  })));
}

module.exports = { metricsSchemaOf };
