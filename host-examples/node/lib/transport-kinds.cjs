'use strict';
// Every transport error kind a dispatcher reports (fleet/transport-kinds.json,
// docs/contract.md "Transport error kinds"): the one place these names are
// spelt. Which class each gets is the policy's (classifyError), never this
// file's. tests/transport-kinds.test.mjs fails when this list and the fleet
// table differ, or when classifyError gives a kind another class than the table.
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
});

/** The kinds in the fleet table's order. */
const TRANSPORT_KIND_NAMES = Object.freeze(Object.values(TRANSPORT_KINDS));

module.exports = { TRANSPORT_KINDS, TRANSPORT_KIND_NAMES };
