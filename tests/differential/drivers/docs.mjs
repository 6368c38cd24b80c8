// The Node driver of the cross-host document run (tests/differential/docs):
// `{"name", "text"}` lines in, one result line per document out, the shape
// src/bin/docs.rs documents. The text goes through the package's JSON text
// path (new RetryPolicy(text)), then every class is admitted at 1000 ms; under
// "health" the text through loadHealthDocument (version, [name, policy_hash]).
import { createInterface } from 'node:readline';
import { RetryPolicy, PolicyError, loadHealthDocument } from '../../../host-examples/node/lib/index.mjs';

const NOW_MS = 1000;
const clock = { nowMs: () => NOW_MS };

function result(text) {
  let policy;
  try {
    policy = new RetryPolicy(text, { clock });
  } catch (e) {
    if (e instanceof PolicyError) return { error: [e.code, e.field] };
    return { trap: String(e?.message ?? e) };
  }
  const classes = [];
  for (const name of policy.classes) {
    try {
      const a = policy.admit(name, NOW_MS);
      classes.push([a.class, a.policy_hash, Number(a.deadline_ms), a.max_attempts, Number(a.expected_span_ms)]);
    } catch (e) {
      if (e instanceof PolicyError) return { error: [e.code, e.field], admitting: name };
      return { trap: String(e?.message ?? e), admitting: name };
    }
  }
  return { version: policy.version, classes };
}

// The text as a format-3 document: its version and each class's name and policy hash.
function health(text) {
  try {
    const d = loadHealthDocument(text);
    return { version: d.version, classes: d.classes.map((c) => [c.name, c.policy_hash]) };
  } catch (e) {
    if (e instanceof PolicyError) return { error: [e.code, e.field] };
    return { trap: String(e?.message ?? e) };
  }
}

const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line) continue;
  const { name, text } = JSON.parse(line);
  out.push(JSON.stringify({ ...result(text), health: health(text), name }));
  if (out.length >= 256) process.stdout.write(out.splice(0).join('\n') + '\n');
}
if (out.length) process.stdout.write(out.join('\n') + '\n');
