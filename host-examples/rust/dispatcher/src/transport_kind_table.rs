// GENERATED - DO NOT EDIT. From fleet/transport-kinds.json by fleet/gen-transport-kinds (run it to regenerate).
//! The table's kinds as constants (see transport_kind.rs).

use super::Class;

/// no connection within the connect timeout
pub const CONNECT_TIMEOUT: &str = "connect_timeout";
/// connected, but the response (status line, headers or body) did not arrive in time
pub const READ_TIMEOUT: &str = "read_timeout";
/// the request could not be written in time
pub const WRITE_TIMEOUT: &str = "write_timeout";
/// no connection from the client's pool in time
pub const POOL_TIMEOUT: &str = "pool_timeout";
/// the connection was refused or reset before a response, or the TLS handshake failed for a reason other than the certificate
pub const CONNECT_ERROR: &str = "connect_error";
/// the server broke HTTP: a malformed or truncated response, a body over the size limit, a closed connection mid-response
pub const REMOTE_PROTOCOL_ERROR: &str = "remote_protocol_error";
/// the target URL's scheme is not http or https
pub const UNSUPPORTED_PROTOCOL: &str = "unsupported_protocol";
/// the target URL cannot be parsed or has no host
pub const INVALID_URL: &str = "invalid_url";
/// the dispatcher does not follow redirects; reserved for clients that do
pub const TOO_MANY_REDIRECTS: &str = "too_many_redirects";
/// every address the host resolves to is in the refused table (fleet/destinations.json); nothing was sent
pub const DESTINATION_REFUSED: &str = "destination_refused";
/// the response's status is outside 100-599
pub const UNEXPECTED_STATUS: &str = "unexpected_status";
/// the client refused to send the request as built (for example an invalid header value); a retry would build it the same way
pub const LOCAL_PROTOCOL_ERROR: &str = "local_protocol_error";
/// the server's certificate failed verification: untrusted issuer, name mismatch, expired or not yet valid
pub const TLS_CERTIFICATE: &str = "tls_certificate";
/// signing is on and the endpoint has no usable signing secret: nothing was sent (never unsigned)
pub const CREDENTIALS_UNAVAILABLE: &str = "credentials_unavailable";

/// Every kind of the table, in its order, with its class.
pub const ALL: [(&str, Class); 14] = [
    (CONNECT_TIMEOUT, Class::Retryable),
    (READ_TIMEOUT, Class::Retryable),
    (WRITE_TIMEOUT, Class::Retryable),
    (POOL_TIMEOUT, Class::Retryable),
    (CONNECT_ERROR, Class::Retryable),
    (REMOTE_PROTOCOL_ERROR, Class::Retryable),
    (UNSUPPORTED_PROTOCOL, Class::Terminal),
    (INVALID_URL, Class::Terminal),
    (TOO_MANY_REDIRECTS, Class::Terminal),
    (DESTINATION_REFUSED, Class::Terminal),
    (UNEXPECTED_STATUS, Class::Terminal),
    (LOCAL_PROTOCOL_ERROR, Class::Terminal),
    (TLS_CERTIFICATE, Class::Terminal),
    (CREDENTIALS_UNAVAILABLE, Class::Terminal),
];
