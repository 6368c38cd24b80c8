// GENERATED - DO NOT EDIT. From fleet/transport-kinds.json by fleet/gen-transport-kinds (run it to regenerate).
/** A transport error kind (fleet/transport-kinds.json). */
export type TransportKind =
  | 'connect_timeout'
  | 'read_timeout'
  | 'write_timeout'
  | 'pool_timeout'
  | 'connect_error'
  | 'remote_protocol_error'
  | 'unsupported_protocol'
  | 'invalid_url'
  | 'too_many_redirects'
  | 'destination_refused'
  | 'unexpected_status'
  | 'local_protocol_error'
  | 'tls_certificate'
  | 'credentials_unavailable';
/** The kinds as constants: `TRANSPORT_KINDS.TLS_CERTIFICATE` is `'tls_certificate'`. */
export declare const TRANSPORT_KINDS: Readonly<{
  CONNECT_TIMEOUT: 'connect_timeout';
  READ_TIMEOUT: 'read_timeout';
  WRITE_TIMEOUT: 'write_timeout';
  POOL_TIMEOUT: 'pool_timeout';
  CONNECT_ERROR: 'connect_error';
  REMOTE_PROTOCOL_ERROR: 'remote_protocol_error';
  UNSUPPORTED_PROTOCOL: 'unsupported_protocol';
  INVALID_URL: 'invalid_url';
  TOO_MANY_REDIRECTS: 'too_many_redirects';
  DESTINATION_REFUSED: 'destination_refused';
  UNEXPECTED_STATUS: 'unexpected_status';
  LOCAL_PROTOCOL_ERROR: 'local_protocol_error';
  TLS_CERTIFICATE: 'tls_certificate';
  CREDENTIALS_UNAVAILABLE: 'credentials_unavailable';
}>;
/** The kinds in the fleet table's order. */
export declare const TRANSPORT_KIND_NAMES: readonly TransportKind[];
/** The class the table states for each kind. */
export declare const TRANSPORT_KIND_CLASS: Readonly<Record<TransportKind, 'retryable' | 'terminal'>>;
