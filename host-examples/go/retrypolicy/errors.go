package retrypolicy

import (
	"errors"
	"fmt"
)

// PolicyError (generated from the WIT record policy-error) is a refused
// input: the contract's code, the dotted path of the offending field
// (empty if none) and a sentence. Match it with errors.As:
//
//	var pe *retrypolicy.PolicyError
//	if errors.As(err, &pe) && pe.Code == retrypolicy.ErrorCodeInvalidBackoff { ... }
//
// Codes print as the contract spells them (pe.Code.String() ==
// "invalid_backoff"). Every semantic check is the component's; this host
// itself only refuses what the WIT cannot carry: invalid_input (invalid
// UTF-8, a variant with no or two cases set, an enum value out of range)
// and, for a jitter out of range, invalid_backoff.
func (e *PolicyError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("%s: %s: %s", e.Code, e.Field, e.Message)
}

// policyError is the *PolicyError of a value the WIT cannot carry.
func (e *lowerError) policyError() *PolicyError {
	code := ErrorCodeInvalidInput
	if e.Type == "Jitter" {
		code = ErrorCodeInvalidBackoff // the contract's code for an unknown jitter
	}
	return &PolicyError{Code: code, Field: e.Field, Message: e.Msg}
}

// TrapError is a failure inside the guest or at the ABI boundary (a wasm
// trap, a malformed value handed back, an exhausted memory): a bug or a
// resource limit, never a policy answer. The instance it happened in is
// discarded; the engine stays usable.
type TrapError struct {
	// Op is the WIT function being called, e.g. "settle".
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
