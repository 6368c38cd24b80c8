package retrypolicy

import "time"

// Constructors of the common AttemptOutcome shapes.

// ResponseOutcome is an outcome with a response and no Retry-After.
func ResponseOutcome(status uint16) AttemptOutcome {
	return AttemptOutcome{Response: &HTTPResponse{Status: status}}
}

// ResponseOutcomeRetryAfter is an outcome with a response and a Retry-After
// in milliseconds (from ParseRetryAfter).
func ResponseOutcomeRetryAfter(status uint16, retryAfterMs uint64) AttemptOutcome {
	return AttemptOutcome{Response: &HTTPResponse{Status: status, RetryAfterMs: &retryAfterMs}}
}

// TransportErrorOutcome is an outcome without a response: the transport
// error kind, e.g. "connect_timeout" (unknown kinds are terminal).
func TransportErrorOutcome(kind string) AttemptOutcome {
	return AttemptOutcome{TransportError: &kind}
}

// Delay is DelayMs as a time.Duration.
func (r Retry) Delay() time.Duration { return time.Duration(r.DelayMs) * time.Millisecond }
