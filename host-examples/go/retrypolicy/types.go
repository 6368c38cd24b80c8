package retrypolicy

import "time"

// The WIT records of webhook:retry-policy/types@0.1.0 as Go structs. JSON
// tags use the contract's snake_case names so records can be persisted and
// read by tools of every language. Every duration and instant is integer
// milliseconds (`Ms`), instants on the Unix-epoch wall clock.

// Backoff is the backoff curve: the ceiling of retry i is
// min(CapMs, BaseMs * Factor^i).
type Backoff struct {
	BaseMs uint64  `json:"base_ms"`
	Factor float64 `json:"factor"`
	CapMs  uint64  `json:"cap_ms"`
	Jitter Jitter  `json:"jitter"`
}

// Budget is the retry budget: retries may not exceed Ratio of all attempts
// per endpoint, counted in buckets of WindowMs.
type Budget struct {
	Ratio     float64 `json:"ratio"`
	WindowMs  uint64  `json:"window_ms"`
	MinSample uint64  `json:"min_sample"`
	Sliding   bool    `json:"sliding"`
}

// Policy is the policy of one event class.
type Policy struct {
	Backoff  Backoff `json:"backoff"`
	WindowMs uint64  `json:"window_ms"`
	HardCap  uint32  `json:"hard_cap"`
	Budget   Budget  `json:"budget"`
}

// Schedule is a schedule derived from the window by Plan or Admit.
type Schedule struct {
	MaxAttempts     uint32    `json:"max_attempts"`
	ExpectedSpanMs  uint64    `json:"expected_span_ms"`
	OffsetsMs       []uint64  `json:"offsets_ms"`
	WorstCaseSpanMs uint64    `json:"worst_case_span_ms"`
	LimitedBy       LimitedBy `json:"limited_by"`
}

// BucketCounts are the counts of one budget bucket.
type BucketCounts struct {
	Total   uint64 `json:"total"`
	Retries uint64 `json:"retries"`
}

// BudgetCounts are the current bucket (now / window) and the one before it.
type BudgetCounts struct {
	Current  BucketCounts `json:"current"`
	Previous BucketCounts `json:"previous"`
}

// DeliveryState is what the host persisted about an event.
type DeliveryState struct {
	EventID              string `json:"event_id"`
	EndpointID           string `json:"endpoint_id"`
	Attempt              uint32 `json:"attempt"`      // 1-based: the attempt just completed
	MaxAttempts          uint32 `json:"max_attempts"` // as admitted
	FirstAttemptedAtMs   uint64 `json:"first_attempted_at_ms"`
	CredentialsRefreshed bool   `json:"credentials_refreshed"`
}

// HTTPResponse is a response that arrived.
type HTTPResponse struct {
	Status uint16 `json:"status"`
	// RetryAfterMs is the Retry-After header in milliseconds, nil if absent.
	RetryAfterMs *uint64 `json:"retry_after_ms,omitempty"`
}

// Outcome is how an attempt ended (the WIT variant attempt-outcome):
// Response when a response arrived; otherwise ErrorKind, the transport
// error kind (e.g. "connect_timeout"; unknown kinds are terminal). Setting
// both is an invalid_input error.
type Outcome struct {
	Response  *HTTPResponse `json:"response,omitempty"`
	ErrorKind string        `json:"error_kind,omitempty"`
}

// ResponseOutcome is an outcome with a response and no Retry-After.
func ResponseOutcome(status uint16) Outcome {
	return Outcome{Response: &HTTPResponse{Status: status}}
}

// ResponseOutcomeRetryAfter is an outcome with a response and a Retry-After.
func ResponseOutcomeRetryAfter(status uint16, retryAfterMs uint64) Outcome {
	return Outcome{Response: &HTTPResponse{Status: status, RetryAfterMs: &retryAfterMs}}
}

// TransportErrorOutcome is an outcome without a response.
func TransportErrorOutcome(kind string) Outcome { return Outcome{ErrorKind: kind} }

// DeadLetter is what an operator reads about an event that was not delivered.
type DeadLetter struct {
	EventID    string     `json:"event_id"`
	EndpointID string     `json:"endpoint_id"`
	Attempts   uint32     `json:"attempts"`
	ElapsedMs  uint64     `json:"elapsed_ms"`
	StopReason StopReason `json:"stop_reason"`
}

// Retry schedules another attempt.
type Retry struct {
	DelayMs            uint64 `json:"delay_ms"`
	RefreshCredentials bool   `json:"refresh_credentials"`
}

// Delay is DelayMs as a time.Duration.
func (r Retry) Delay() time.Duration { return time.Duration(r.DelayMs) * time.Millisecond }

// Stop ends the chain.
type Stop struct {
	Reason          StopReason `json:"reason"`
	DisableEndpoint bool       `json:"disable_endpoint"` // 410 Gone
	// DeadLetter is set for every reason but Delivered.
	DeadLetter *DeadLetter `json:"dead_letter,omitempty"`
}

// Decision is the decision after an attempt: exactly one of Retry and Stop
// is set.
type Decision struct {
	Retry *Retry `json:"retry,omitempty"`
	Stop  *Stop  `json:"stop,omitempty"`
}

// EventClass is a named class of a policy document.
type EventClass struct {
	Name   string `json:"name"`
	Policy Policy `json:"policy"`
}

// PolicyDocument is a validated policy document (LoadDocument), its
// classes sorted by name.
type PolicyDocument struct {
	Version string       `json:"version"`
	Classes []EventClass `json:"classes"`
}

// Admission is the schedule an event is admitted under: persist it with
// the event (the window is measured from FirstAttemptedAtMs).
type Admission struct {
	Class              string   `json:"class"`
	PolicyVersion      string   `json:"policy_version"`
	PolicyHash         string   `json:"policy_hash"` // FNV-1a 64 of the class policy, 16 hex digits
	FirstAttemptedAtMs uint64   `json:"first_attempted_at_ms"`
	DeadlineMs         uint64   `json:"deadline_ms"`
	Schedule           Schedule `json:"schedule"`
}
