'use strict';
// Loading an artifact (docs/artifact.md "Loading: checks before first use"):
// read, pin, parse, ABI, self-test, document, each refusal an ArtifactError
// with the step's code. The result, an Artifact, is immutable: a swap
// (lib/artifact/current.cjs) replaces it whole.
const path = require('node:path');
const { ArtifactError } = require('../errors.cjs');
const { readComponent, utf8 } = require('./reader.cjs');
const { MAX_ARTIFACT_BYTES, readArtifactFile, checkSize, pinOf } = require('./read-file.cjs');
const { Instances } = require('./instance.cjs');
const { metricsSchemaOf } = require('./metrics-schema.cjs');
const lower = require('../lower.cjs');

const WIT_VERSION = '1.0.0';
const WIT_PACKAGE = `webhook:retry-policy@${WIT_VERSION}`;
const ABI_VERSION = 5;
const INTERFACE = `webhook:retry-policy/policy@${WIT_VERSION}`;
const DOCUMENT_SECTION = 'webhook-retry-policy:document';
const BUILD_SECTION = 'webhook-retry-policy:build';
/** The copy shipped inside the package. */
const EMBEDDED_PATH = path.join(__dirname, '..', 'retry_policy.wasm');
/** Every function of the interface the glue calls. */
const FUNCTIONS = [
  'abi-version', 'plan', 'classify-status', 'classify-error', 'load-document', 'admit', 'evaluate', 'settle',
  'parse-retry-after', 'store-key', 'store-apply', 'decide', 'load-health-document', 'engine-open', 'engine-feed',
  'engine-resume', 'engine-close', 'read-target', 'destination-refusal', 'vector-case',
  'rollout-open', 'rollout-step', 'replica-args', 'metrics-schema',
];

const sha256 = (bytes) => require('node:crypto').createHash('sha256').update(bytes).digest('hex');

/**
 * Where the artifact comes from: `source` (a path or bytes) when given, else
 * RETRY_POLICY_ARTIFACT (when set and not empty), else the package's copy.
 * Returns {bytes, source} (`bytesLabel`: the source named for bytes).
 */
function read(source, bytesLabel = 'bytes') {
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    const bytes = new Uint8Array(source);
    checkSize(bytes, bytesLabel);
    return { bytes, source: bytesLabel };
  }
  let file;
  let label;
  if (typeof source === 'string') {
    file = label = source;
  } else if (source == null && process.env.RETRY_POLICY_ARTIFACT) {
    file = label = process.env.RETRY_POLICY_ARTIFACT;
  } else if (source == null) {
    file = EMBEDDED_PATH;
    label = 'embedded';
  } else {
    throw new TypeError('artifact: expected a path, bytes (Uint8Array) or nothing');
  }
  return { bytes: readArtifactFile(file), source: label };
}

/** The WIT package version named by the main module's exports, or `unknown`. */
function exportedVersion(exports) {
  for (const name of exports) {
    const m = /^webhook:retry-policy\/policy@([^#]+)#/.exec(name);
    if (m) return m[1];
  }
  return 'unknown';
}

function abiMismatch(version, abi) {
  return new ArtifactError(
    'artifact_abi_mismatch',
    `artifact implements webhook:retry-policy@${version} (abi ${abi}); this host speaks ${WIT_PACKAGE} (abi ${ABI_VERSION})`,
  );
}

function selfTest(instances) {
  const check = (call, expected, run) => {
    let got;
    try {
      got = instances.run(run);
    } catch (e) {
      got = `${e?.name ?? 'error'}: ${e?.message ?? e}`;
    }
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      throw new ArtifactError('artifact_self_test_failed', `${call}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
    }
  };
  const backoff = lower.backoff({ base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: 'none' }, 'backoff');
  check(
    'plan({base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: none}, 10000, 16)',
    { max_attempts: 4, offsets_ms: [0, 1000, 3000, 7000], limited_by: 'window' },
    (api) => {
      const s = lower.scheduleOut(api.plan(backoff, 10000n, 16));
      return { max_attempts: s.max_attempts, offsets_ms: s.offsets_ms, limited_by: s.limited_by };
    },
  );
  check('classify-status(200)', 'success', (api) => api.classifyStatus(200));
  check('parse-retry-after("120", 0)', 120000, (api) => lower.n(api.parseRetryAfter('120', 0n)));
}

/**
 * Load and check an artifact. `source`: a path, bytes, or nothing (the
 * environment's RETRY_POLICY_ARTIFACT, else the package's copy);
 * `expectedSha256`: the pin, 64 hex digits in either case (absent or '':
 * RETRY_POLICY_ARTIFACT_SHA256 when set and not empty); `label`: what
 * bytes are called in ArtifactInfo.source (default "bytes", e.g. "redis").
 * Returns an Artifact; throws ArtifactError.
 */
function loadArtifact(source, { expectedSha256, label: bytesLabel } = {}) {
  const pin = pinOf(expectedSha256); // before reading: a malformed pin is the caller's error
  const { bytes, source: label } = read(source, bytesLabel);
  // The digest is computed now only for a pin (never weakened); otherwise on
  // first read of info.sha256: node:crypto alone costs ~2-3 ms of a cold start.
  const digest = pin === null ? null : sha256(bytes);
  if (pin !== null && pin !== digest) {
    throw new ArtifactError('artifact_sha256_mismatch', `expected sha256 ${pin}, the artifact's is ${digest}`);
  }
  const { custom, main, mainExports } = readComponent(bytes);
  const version = exportedVersion(mainExports);
  if (version !== WIT_VERSION) throw abiMismatch(version, 'unknown');
  const missing = FUNCTIONS.filter((f) => !mainExports.includes(`${INTERFACE}#${f}`));
  if (missing.length) {
    throw new ArtifactError('artifact_abi_mismatch', `the main module does not export ${missing.map((f) => `${INTERFACE}#${f}`).join(', ')}; this host speaks ${WIT_PACKAGE} (abi ${ABI_VERSION})`);
  }
  let artifact;
  let abi;
  try {
    artifact = new Artifact(new WebAssembly.Module(main));
    abi = artifact.run((api) => api.abiVersion());
  } catch (e) {
    throw new ArtifactError('artifact_invalid', `the runtime refused the main module: ${e?.message ?? e}`);
  }
  if (abi !== ABI_VERSION) throw abiMismatch(version, abi);
  selfTest(artifact);
  const build = parseBuild(custom.get(BUILD_SECTION));
  let document = null;
  const section = custom.get(DOCUMENT_SECTION);
  if (section !== undefined) {
    let text;
    try {
      text = utf8().decode(section);
      // Format 2 or 3 (step 6): the artifact's own load-health-document.
      const health = artifact.run((api) => api.loadHealthDocument(text));
      document = { text, health };
    } catch (e) {
      const why = e?.payload ? lower.policyError(e.payload).message : 'not UTF-8';
      throw new ArtifactError('artifact_document_invalid', `the embedded document (${DOCUMENT_SECTION}) does not load: ${why}`);
    }
  }
  return artifact.describe({ sha256: digest ?? (() => sha256(bytes)), source: label, size: bytes.length, build, document });
}

function parseBuild(section) {
  if (section === undefined) return null;
  try {
    return JSON.parse(utf8().decode(section));
  } catch {
    throw new ArtifactError('artifact_invalid', `the custom section ${BUILD_SECTION} is not a UTF-8 JSON object`);
  }
}

/** A loaded, checked artifact: its instances (run `f(api)` on one, withImports, memoryBytes) and what it is. */
class Artifact extends Instances {
  #metricsSchema = null;

  /** What it is, said once by loadArtifact; `sha256`: the hex digest, or a function computing it (on first read, once). */
  describe({ sha256, source, size, build, document }) {
    let digest = typeof sha256 === 'function' ? null : sha256;
    /** What it is (docs/artifact.md "ArtifactInfo"). */
    this.info = Object.freeze({
      get sha256() {
        return (digest ??= sha256());
      },
      abi: WIT_PACKAGE,
      document_version: document === null ? null : document.health.version,
      source,
      size,
      policy_core_version: build?.policy_core_version ?? null,
      source_digest: build?.source_digest ?? null,
    });
    /** The embedded document's JSON text, or null. */
    this.documentText = document?.text ?? null;
    /** The embedded document as load-health-document read it (health sections included), or null. */
    this.healthDocument = document?.health ?? null;
    /** Whether the embedded document has a class with a `health` section (format 3). */
    this.hasHealth = document !== null && document.health.classes.some((c) => c.health !== undefined);
    return this;
  }

  /** The dispatcher's metric families (docs/metrics.md "The schema as data"), read once; throws ArtifactError. */
  metricsSchema() {
    try {
      return (this.#metricsSchema ??= metricsSchemaOf(this.run((api) => api.metricsSchema())));
    } catch (e) {
      // An artifact whose export lies about its type (abi-version checked) throws from the glue: typed here.
      if (e instanceof ArtifactError) throw e;
      throw new ArtifactError('artifact_invalid', `metrics-schema: ${e.message}`);
    }
  }
}

module.exports = { loadArtifact, sha256, selfTest, Artifact, WIT_PACKAGE, ABI_VERSION, EMBEDDED_PATH, DOCUMENT_SECTION, BUILD_SECTION, MAX_ARTIFACT_BYTES };
