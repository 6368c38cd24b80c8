package httpoutcome

import rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"

// TransportKind, its constants, TransportKinds and KindClass are in
// zz_generated_kinds.go (fleet/gen-transport-kinds writes it from
// fleet/transport-kinds.json); kinds_test.go checks them against the JSON
// and the policy's classify_error.

// Failed is the attempt outcome of a transport error of kind k.
func Failed(k TransportKind) rp.AttemptOutcome { return rp.TransportErrorOutcome(string(k)) }

// KindOf is the transport kind of an outcome, ok false when it has a response.
func KindOf(o rp.AttemptOutcome) (k TransportKind, ok bool) {
	if o.TransportError == nil {
		return "", false
	}
	return TransportKind(*o.TransportError), true
}
