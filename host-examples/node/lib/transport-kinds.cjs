'use strict';
// GENERATED - DO NOT EDIT. From fleet/transport-kinds.json by fleet/gen-transport-kinds (run it to regenerate).
// Every transport error kind a dispatcher reports (docs/contract.md
// "Transport error kinds"): the one place these names are spelt in Node.
// Which class each gets is the policy's (classifyError), never this file's;
// tests/transport-kinds.test.mjs fails when classifyError disagrees.
const TRANSPORT_KINDS = Object.freeze({
  CONNECT_TIMEOUT: 'connect_timeout',
  READ_TIMEOUT: 'read_timeout',
  WRITE_TIMEOUT: 'write_timeout',
  POOL_TIMEOUT: 'pool_timeout',
  CONNECT_ERROR: 'connect_error',
  REMOTE_PROTOCOL_ERROR: 'remote_protocol_error',
  UNSUPPORTED_PROTOCOL: 'unsupported_protocol',
  INVALID_URL: 'invalid_url',
  TOO_MANY_REDIRECTS: 'too_many_redirects',
  DESTINATION_REFUSED: 'destination_refused',
  UNEXPECTED_STATUS: 'unexpected_status',
  LOCAL_PROTOCOL_ERROR: 'local_protocol_error',
  TLS_CERTIFICATE: 'tls_certificate',
  CREDENTIALS_UNAVAILABLE: 'credentials_unavailable',
});

/** The kinds in the fleet table's order. */
const TRANSPORT_KIND_NAMES = Object.freeze(Object.values(TRANSPORT_KINDS));

/** The class the table states for each kind (checked against the policy). */
const TRANSPORT_KIND_CLASS = Object.freeze({
  connect_timeout: 'retryable',
  read_timeout: 'retryable',
  write_timeout: 'retryable',
  pool_timeout: 'retryable',
  connect_error: 'retryable',
  remote_protocol_error: 'retryable',
  unsupported_protocol: 'terminal',
  invalid_url: 'terminal',
  too_many_redirects: 'terminal',
  destination_refused: 'terminal',
  unexpected_status: 'terminal',
  local_protocol_error: 'terminal',
  tls_certificate: 'terminal',
  credentials_unavailable: 'terminal',
});

module.exports = { TRANSPORT_KINDS, TRANSPORT_KIND_NAMES, TRANSPORT_KIND_CLASS };
