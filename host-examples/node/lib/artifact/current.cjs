'use strict';
// The process's current artifact and swapping it without a restart
// (docs/artifact.md "Swapping without a restart").
//
// The first call into the package loads the default artifact (the
// environment's RETRY_POLICY_ARTIFACT, else the package's copy), or the one
// `loadArtifact` was given. `swapArtifact` runs every check on the new file
// before anything changes, then replaces the current artifact in one
// assignment: a call already running (JavaScript runs one at a time; an
// async step keeps the artifact it began on) finishes on its instance, later
// calls use the new one. A refused file changes nothing and the error says
// why. Listeners (`onArtifactChange`) hear every load and swap.
const { loadArtifact: load, sha256 } = require('./load.cjs');
const { readArtifactFile } = require('./read-file.cjs');
const { ArtifactError } = require('../errors.cjs');
const { callHook } = require('../hook.cjs');

let current = null;
const listeners = new Set();

/** The current artifact (loading the default on first use). */
function artifact() {
  if (current === null) {
    current = load();
    emit({ kind: 'loaded', info: current.info });
  }
  return current;
}

function emit(event) {
  for (const f of listeners) callHook(f, event);
}

/** Load `source` (path, bytes, or nothing: the default) as the current artifact; its ArtifactInfo, or throws ArtifactError. */
function loadArtifact(source, options = {}) {
  const next = load(source, options);
  const previous = current;
  current = next;
  emit(previous === null ? { kind: 'loaded', info: next.info } : { kind: 'swapped', info: next.info, previous: previous.info });
  return next.info;
}

/** Swap in the artifact at `source` (path or bytes), checked first; a refused one is `{ok: false, error}` and changes nothing. */
function swapArtifact(source, options = {}) {
  const previous = artifact();
  let next;
  try {
    if (source == null) throw new TypeError('swapArtifact: expected a path or bytes');
    next = load(source, options);
  } catch (e) {
    const error = e instanceof ArtifactError ? e : new ArtifactError('artifact_invalid', String(e?.message ?? e));
    emit({ kind: 'refused', error, source: typeof source === 'string' ? source : (options.label ?? 'bytes'), info: previous.info });
    return { ok: false, error };
  }
  current = next;
  emit({ kind: 'swapped', info: next.info, previous: previous.info });
  return { ok: true, info: next.info, previous: previous.info };
}

/** What the current artifact is. */
function artifactInfo() {
  return artifact().info;
}

/** The current artifact's metric families (docs/metrics.md "The schema as data"); throws ArtifactError. */
function metricsSchema() {
  return artifact().metricsSchema();
}

/** Hear every load, swap and refusal (ArtifactEvent in index.d.cts); returns a function that stops it. */
function onArtifactChange(f) {
  if (typeof f !== 'function') throw new TypeError('onArtifactChange: expected a function');
  listeners.add(f);
  return () => listeners.delete(f);
}

/**
 * Poll `file` (polling: deploys replace files by rename or symlink swap) and
 * swap when its sha256 differs from the current artifact's; a refused file
 * is reported once per distinct sha256, not at every poll.
 */
function watchArtifact(file, { intervalMs = 1000, expectedSha256, onSwap = () => {} } = {}) {
  if (typeof file !== 'string') throw new TypeError('watchArtifact: expected a path');
  if (!(Number.isFinite(intervalMs) && intervalMs > 0)) throw new TypeError('watchArtifact: intervalMs must be a positive number');
  let refused = null; // the sha256 (or read error) last reported
  const check = () => {
    let bytes;
    try {
      bytes = readArtifactFile(file);
    } catch (e) {
      const error = e instanceof ArtifactError ? e : new ArtifactError('artifact_unreadable', `cannot read ${file}: ${e?.message ?? e}`);
      const key = `unreadable:${error.message}`;
      if (refused === key) return null;
      refused = key;
      emit({ kind: 'refused', error, source: file, info: artifact().info });
      return report({ ok: false, error });
    }
    const digest = sha256(bytes);
    if (digest === artifact().info.sha256 || digest === refused) return null;
    const result = swapArtifact(bytes, { expectedSha256, label: file }); // the bytes hashed, not a second read
    refused = result.ok ? null : digest;
    return report(result);
  };
  const report = (result) => {
    callHook(onSwap, result, file);
    return result;
  };
  const timer = setInterval(check, intervalMs);
  timer.unref?.();
  return { check, close: () => clearInterval(timer) };
}

module.exports = { artifact, loadArtifact, swapArtifact, artifactInfo, metricsSchema, onArtifactChange, watchArtifact };
