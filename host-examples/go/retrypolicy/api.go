package retrypolicy

import (
	"context"
	"errors"
	"strings"

	"github.com/tetratelabs/wazero/sys"
)

// The planning and classification operations of the WIT interface
// `policy`: each lowers its arguments (generated code), calls the guest and
// lifts the answer. A refused input is a *PolicyError; a trap a *TrapError.

// ABIVersion returns the module's abi-version (4 for this host: ABI 1.0).
func (e *Engine) ABIVersion(ctx context.Context) (uint32, error) {
	return onInstance(ctx, e, nil, "abi-version", func(in *instance) (uint32, error) { return in.callABIVersion(ctx) })
}

// Plan derives max attempts and the schedule from a window.
func (e *Engine) Plan(ctx context.Context, b Backoff, windowMs uint64, hardCap uint32) (Schedule, error) {
	return onInstance(ctx, e, nil, "plan", func(in *instance) (Schedule, error) { return in.callPlan(ctx, &b, windowMs, hardCap) })
}

// ClassifyStatus classifies an HTTP status (100..=599, else invalid_status).
func (e *Engine) ClassifyStatus(ctx context.Context, status uint16) (OutcomeClass, error) {
	return onInstance(ctx, e, nil, "classify-status", func(in *instance) (OutcomeClass, error) { return in.callClassifyStatus(ctx, status) })
}

// ClassifyError classifies a transport error kind (unknown kinds are terminal).
func (e *Engine) ClassifyError(ctx context.Context, kind string) (OutcomeClass, error) {
	return onInstance(ctx, e, nil, "classify-error", func(in *instance) (OutcomeClass, error) { return in.callClassifyError(ctx, kind) })
}

// LoadDocument parses and validates a JSON policy document (at most 1 MiB).
func (e *Engine) LoadDocument(ctx context.Context, json []byte) (PolicyDocument, error) {
	text := string(json)
	return onInstance(ctx, e, nil, "load-document", func(in *instance) (PolicyDocument, error) { return in.callLoadDocument(ctx, text) })
}

// Admit returns the schedule a new event of class is admitted under at
// nowMs (persist it with the event). The component re-validates the
// document, since a host may have built or altered it.
func (e *Engine) Admit(ctx context.Context, d PolicyDocument, class string, nowMs uint64) (Admission, error) {
	return onInstance(ctx, e, nil, "admit", func(in *instance) (Admission, error) { return in.callAdmit(ctx, &d, class, nowMs) })
}

// LoadHealthDocument parses and validates a format-3 document (format 2
// with optional health sections, at most 1 MiB): each class with its
// effective section (its own, else the document's; nil: format 2), its
// policy hash and the words the section adds to it. The delivery engine
// (OpenDeliveryEngine) runs its health sections.
func (e *Engine) LoadHealthDocument(ctx context.Context, json []byte) (HealthDocument, error) {
	text := string(json)
	return onInstance(ctx, e, nil, "load-health-document", func(in *instance) (HealthDocument, error) { return in.callLoadHealthDocument(ctx, text) })
}

// VectorCase runs one conformance vector case inside the component (the
// test-only export `vector-case`, for the ops whose functions ABI 1.0 no
// longer exports): format is the vector file's `format` value and kase the
// case, each as JSON text exactly as in the file (numbers unrounded). nil:
// the case passed; a *CaseFailure: the component's reason it failed; any
// other error: the call itself failed (a trap, a done context).
func (e *Engine) VectorCase(ctx context.Context, format, kase string) error {
	_, err := withAnswer(ctx, e, "vector-case", func(in *instance) (struct{}, error) {
		return struct{}{}, in.callVectorCase(ctx, format, kase)
	})
	var answer *answerError
	if errors.As(err, &answer) {
		return &CaseFailure{Message: answer.msg}
	}
	return err
}

// CaseFailure is a vector case the component judged failed (VectorCase).
type CaseFailure struct{ Message string }

func (f *CaseFailure) Error() string { return f.Message }

// answerError is the Err text of a result<_, string> (read-target,
// destination-refusal, vector-case): the guest's answer, not a failure of
// the call; its text is the guest's.
type answerError struct{ msg string }

func (e *answerError) Error() string { return e.msg }

// withAnswer is onInstance for an export whose error is a string: that Err text
// comes back as an *answerError, the instance kept (a trap still discards
// it and is a *TrapError).
func withAnswer[T any](ctx context.Context, e *Engine, op string, fn func(*instance) (T, error)) (T, error) {
	var answer error
	v, err := onInstance(ctx, e, nil, op, func(in *instance) (T, error) {
		v, err := fn(in)
		if isGuestErr(err) {
			answer, err = &answerError{err.Error()}, nil
		}
		return v, err
	})
	if err == nil {
		err = answer
	}
	return v, err
}

// isGuestErr reports whether err is the Err text the glue lifted from a
// result<_, string> (an errors.New, wrapping nothing), not a value refused
// before the call, an ABI error or a trap (wazero's trap errors wrap the
// cause, or carry the wasm stack trace).
func isGuestErr(err error) bool {
	var le *lowerError
	var ab *abiError
	var exit *sys.ExitError
	return err != nil && errors.Unwrap(err) == nil && !errors.As(err, &le) && !errors.As(err, &ab) &&
		!errors.As(err, &exit) && !strings.Contains(err.Error(), "\nwasm stack trace:")
}
