package retrypolicy

import "fmt"

// The WIT enums of webhook:retry-policy/types@0.1.0. Each Go value equals
// the case's index in the WIT (its canonical-ABI discriminant), and each
// spells itself in snake_case as the SPEC and the vectors do.

// Jitter is how a delay is drawn beneath its ceiling c.
type Jitter uint8

const (
	// JitterNone always waits c.
	JitterNone Jitter = iota
	// JitterFull waits uniformly in [0, c].
	JitterFull
	// JitterEqual waits uniformly in [c/2, c].
	JitterEqual
)

var jitterNames = []string{"none", "full", "equal"}

func (j Jitter) String() string { return enumName(jitterNames, uint8(j)) }

// MarshalText spells the jitter as in the contract.
func (j Jitter) MarshalText() ([]byte, error) { return marshalEnum("jitter", jitterNames, uint8(j)) }

// UnmarshalText reads none, full or equal; anything else is a
// *PolicyError with code invalid_backoff, as the SPEC says of an unknown
// jitter (the WIT enum cannot carry one to the component).
func (j *Jitter) UnmarshalText(b []byte) error {
	v, err := ParseJitter(string(b))
	*j = v
	return err
}

// ParseJitter reads a jitter name (invalid_backoff for an unknown one).
func ParseJitter(name string) (Jitter, error) {
	for i, n := range jitterNames {
		if n == name {
			return Jitter(i), nil
		}
	}
	return JitterFull, &PolicyError{Code: CodeInvalidBackoff, Field: "backoff.jitter",
		Message: fmt.Sprintf("unknown jitter %q (expected none, full or equal)", name)}
}

// LimitedBy says what ended a planned schedule.
type LimitedBy uint8

const (
	// LimitedByWindow: the next attempt would start after the window.
	LimitedByWindow LimitedBy = iota
	// LimitedByHardCap: the hard cap cut it while the window had room.
	LimitedByHardCap
)

var limitedByNames = []string{"window", "hard_cap"}

func (l LimitedBy) String() string { return enumName(limitedByNames, uint8(l)) }

// MarshalText spells the value as in the contract.
func (l LimitedBy) MarshalText() ([]byte, error) {
	return marshalEnum("limited_by", limitedByNames, uint8(l))
}

// UnmarshalText reads window or hard_cap.
func (l *LimitedBy) UnmarshalText(b []byte) error {
	v, err := parseEnum("limited_by", limitedByNames, string(b))
	*l = LimitedBy(v)
	return err
}

// OutcomeClass is what an attempt's outcome means.
type OutcomeClass uint8

const (
	// Success: delivered.
	Success OutcomeClass = iota
	// Retryable: may succeed on another attempt.
	Retryable
	// Terminal: will fail the same way every time.
	Terminal
)

var outcomeClassNames = []string{"success", "retryable", "terminal"}

func (c OutcomeClass) String() string { return enumName(outcomeClassNames, uint8(c)) }

// MarshalText spells the class as in the contract.
func (c OutcomeClass) MarshalText() ([]byte, error) {
	return marshalEnum("outcome", outcomeClassNames, uint8(c))
}

// StopReason is why a chain of attempts ended.
type StopReason uint8

const (
	// Delivered: a 2xx arrived.
	Delivered StopReason = iota
	// TerminalResponse: a response that will never succeed.
	TerminalResponse
	// MaxAttemptsExhausted: the event used all its admitted attempts.
	MaxAttemptsExhausted
	// RetryWindowElapsed: the window has elapsed, or the next retry would start past it.
	RetryWindowElapsed
	// RetryBudgetExhausted: the endpoint's fleet-wide retry share is used up.
	RetryBudgetExhausted
	// BudgetUnavailable: the budget store could not be read (fails closed).
	BudgetUnavailable
)

var stopReasonNames = []string{
	"delivered", "terminal_response", "max_attempts_exhausted",
	"retry_window_elapsed", "retry_budget_exhausted", "budget_unavailable",
}

// StopReasons lists every reason, in WIT order (e.g. to pre-register metric labels).
func StopReasons() []StopReason {
	out := make([]StopReason, len(stopReasonNames))
	for i := range out {
		out[i] = StopReason(i)
	}
	return out
}

func (r StopReason) String() string { return enumName(stopReasonNames, uint8(r)) }

// MarshalText spells the reason as in the contract.
func (r StopReason) MarshalText() ([]byte, error) {
	return marshalEnum("stop_reason", stopReasonNames, uint8(r))
}

// UnmarshalText reads a snake_case stop reason.
func (r *StopReason) UnmarshalText(b []byte) error {
	v, err := parseEnum("stop_reason", stopReasonNames, string(b))
	*r = StopReason(v)
	return err
}

func enumName(names []string, v uint8) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("unknown(%d)", v)
}

func marshalEnum(what string, names []string, v uint8) ([]byte, error) {
	if int(v) < len(names) {
		return []byte(names[v]), nil
	}
	return nil, fmt.Errorf("retrypolicy: %s %d is not a known value", what, v)
}

func parseEnum(what string, names []string, s string) (uint8, error) {
	for i, n := range names {
		if n == s {
			return uint8(i), nil
		}
	}
	return 0, &PolicyError{Code: CodeInvalidInput, Field: what, Message: fmt.Sprintf("unknown %s %q", what, s)}
}
