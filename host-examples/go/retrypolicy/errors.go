package retrypolicy

import (
	"errors"
	"fmt"
)

// ErrorCode is a SPEC error code, snake_case (the WIT spells them
// kebab-case; this host reports them as the SPEC does).
type ErrorCode string

// The SPEC's error codes. Every semantic check happens in the component;
// this host itself only reports CodeInvalidInput (a value of the wrong
// shape) and, for a jitter name or value the WIT enum cannot carry,
// CodeInvalidBackoff.
const (
	CodeInvalidBackoff    ErrorCode = "invalid_backoff"
	CodeInvalidHardCap    ErrorCode = "invalid_hard_cap"
	CodeInvalidWindow     ErrorCode = "invalid_window"
	CodeInvalidBudget     ErrorCode = "invalid_budget"
	CodeInvalidState      ErrorCode = "invalid_state"
	CodeInvalidStatus     ErrorCode = "invalid_status"
	CodeInvalidInput      ErrorCode = "invalid_input"
	CodeInvalidDocument   ErrorCode = "invalid_document"
	CodeUnknownEventClass ErrorCode = "unknown_event_class"
)

// errorCodes is the WIT `error-code` enum in case order (the discriminant).
var errorCodes = []ErrorCode{
	CodeInvalidBackoff, CodeInvalidHardCap, CodeInvalidWindow, CodeInvalidBudget,
	CodeInvalidState, CodeInvalidStatus, CodeInvalidInput, CodeInvalidDocument,
	CodeUnknownEventClass,
}

// PolicyError is a refused input: the SPEC code, the dotted path of the
// offending field (empty if none) and a sentence for humans. Match it with
// errors.As:
//
//	var pe *retrypolicy.PolicyError
//	if errors.As(err, &pe) && pe.Code == retrypolicy.CodeInvalidBackoff { ... }
type PolicyError struct {
	Code    ErrorCode `json:"code"`
	Field   string    `json:"field"`
	Message string    `json:"message"`
}

func (e *PolicyError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("%s: %s: %s", e.Code, e.Field, e.Message)
}

func invalidInput(field, format string, args ...any) *PolicyError {
	return &PolicyError{Code: CodeInvalidInput, Field: field, Message: fmt.Sprintf(format, args...)}
}

// TrapError is a failure inside the guest or at the ABI boundary (a wasm
// trap, a malformed value handed back, an exhausted memory): a bug or a
// resource limit, never a policy answer. The instance it happened in is
// discarded; the engine stays usable.
type TrapError struct {
	// Op is the WIT function being called, e.g. "decide-with".
	Op string
	// Err is what wazero (or the ABI glue) reported.
	Err error
}

func (e *TrapError) Error() string {
	return fmt.Sprintf("retrypolicy: %s: guest trap: %v", e.Op, e.Err)
}

func (e *TrapError) Unwrap() error { return e.Err }

// ErrClosed is returned by calls on an Engine after Close.
var ErrClosed = errors.New("retrypolicy: engine is closed")
