'use strict';
// @webhook/retry-policy — the webhook retry policy for Node dispatchers: the
// decisions of the ONE policy artifact every host of the fleet runs (a
// WebAssembly component, docs/artifact.md), through jco's glue. Types:
// index.d.cts (API) and types.d.cts (generated from wit/).
const constants = require('./constants.cjs');
const ops = require('./ops.cjs');
const { loadHealthDocument, embeddedDocument } = require('./document.cjs');
const { RetryPolicy } = require('./retry-policy.cjs');
const { InMemoryBudgetStore } = require('./stores.cjs');
const { DeliveryEngine } = require('./delivery-engine.cjs');
const { destinationRefusal } = require('./destinations.cjs');
const { watchPolicyFile } = require('./reload.cjs');
const artifacts = require('./artifact/current.cjs');
const { appendCustomSection } = require('./artifact/reader.cjs');
const { WIT_PACKAGE, ABI_VERSION } = require('./artifact/load.cjs');
const rollout = require('./rollout/index.cjs');

module.exports = {
  plan: ops.plan,
  classifyStatus: ops.classifyStatus,
  classifyError: ops.classifyError,
  decide: ops.decide,
  evaluate: ops.evaluate,
  settle: ops.settle,
  retryAfter: ops.retryAfter,
  storeKey: ops.storeKey,
  storeApply: ops.storeApply,
  EMPTY_HELD: ops.EMPTY_HELD,
  loadHealthDocument,
  embeddedDocument,
  RetryPolicy,
  DeliveryEngine,
  destinationRefusal,
  InMemoryBudgetStore,
  ...require('./redis-store.cjs'), // RedisBudgetStore, evictionWarning, checkEviction
  ...require('./clock.cjs'), // ManualClock, systemClock
  ...require('./errors.cjs'), // PolicyError, ArtifactError, RolloutError and their codes
  rollout,
  watchPolicyFile,
  loadArtifact: artifacts.loadArtifact,
  swapArtifact: artifacts.swapArtifact,
  watchArtifact: artifacts.watchArtifact,
  artifactInfo: artifacts.artifactInfo,
  metricsSchema: artifacts.metricsSchema,
  onArtifactChange: artifacts.onArtifactChange,
  appendCustomSection,
  WIT_PACKAGE,
  ABI_VERSION,
  ...require('./signing.cjs'), // sign, signatureHeaders, verify, WebhookVerificationError
  ...require('./transport-kinds.cjs'), // TRANSPORT_KINDS, TRANSPORT_KIND_NAMES, TRANSPORT_KIND_CLASS
  ...constants,
};
