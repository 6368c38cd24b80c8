package journal

import (
	"strconv"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// LastOutcome is a record's `last_outcome` for an attempt's outcome: the
// status code ("503") or the transport kind ("connect_error"); "" for none.
func LastOutcome(o rp.AttemptOutcome) string {
	if o.Response != nil {
		return strconv.Itoa(int(o.Response.Status))
	}
	if o.TransportError != nil {
		return *o.TransportError
	}
	return ""
}
