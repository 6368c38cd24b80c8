package httpoutcome

import rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"

// TransportKind is a transport error kind of the contract: the closed
// list of fleet/transport-kinds.json (docs/contract.md, "Transport error
// kinds"). Every Go dispatcher names an attempt that ended without a
// response with one of the constants below, never a bare string, so a
// misspelt kind does not compile; kinds_test.go fails when this list and
// the JSON differ, or when the policy's classify_error gives a kind
// another class than the JSON's.
type TransportKind string

// The kinds, in the order of fleet/transport-kinds.json.
const (
	ConnectTimeout      TransportKind = "connect_timeout"
	ReadTimeout         TransportKind = "read_timeout"
	WriteTimeout        TransportKind = "write_timeout"
	PoolTimeout         TransportKind = "pool_timeout"
	ConnectError        TransportKind = "connect_error"
	RemoteProtocolError TransportKind = "remote_protocol_error"
	UnsupportedProtocol TransportKind = "unsupported_protocol"
	InvalidURL          TransportKind = "invalid_url"
	TooManyRedirects    TransportKind = "too_many_redirects"
	DestinationRefused  TransportKind = "destination_refused"
	UnexpectedStatus    TransportKind = "unexpected_status"
	LocalProtocolError  TransportKind = "local_protocol_error"
	TLSCertificate      TransportKind = "tls_certificate"
)

// TransportKinds is every kind, in the JSON's order (summaries and metrics
// list them all, zeros included).
func TransportKinds() []TransportKind {
	return []TransportKind{ConnectTimeout, ReadTimeout, WriteTimeout, PoolTimeout, ConnectError,
		RemoteProtocolError, UnsupportedProtocol, InvalidURL, TooManyRedirects, DestinationRefused,
		UnexpectedStatus, LocalProtocolError, TLSCertificate}
}

// Failed is the attempt outcome of a transport error of kind k.
func Failed(k TransportKind) rp.AttemptOutcome { return rp.TransportErrorOutcome(string(k)) }

// KindOf is the transport kind of an outcome, ok false when it has a response.
func KindOf(o rp.AttemptOutcome) (k TransportKind, ok bool) {
	if o.TransportError == nil {
		return "", false
	}
	return TransportKind(*o.TransportError), true
}
