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
func (e *Engine) ABIVersion(ctx context.Context) (v uint32, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "abi-version", in, &err)
	v, err = in.callABIVersion(ctx)
	return v, err
}

// Plan derives max attempts and the schedule from a window.
func (e *Engine) Plan(ctx context.Context, b Backoff, windowMs uint64, hardCap uint32) (s Schedule, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "plan", in, &err)
	s, err = in.callPlan(ctx, &b, windowMs, hardCap)
	return s, err
}

// ClassifyStatus classifies an HTTP status (100..=599, else invalid_status).
func (e *Engine) ClassifyStatus(ctx context.Context, status uint16) (c OutcomeClass, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "classify-status", in, &err)
	c, err = in.callClassifyStatus(ctx, status)
	return c, err
}

// ClassifyError classifies a transport error kind (unknown kinds are terminal).
func (e *Engine) ClassifyError(ctx context.Context, kind string) (c OutcomeClass, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "classify-error", in, &err)
	c, err = in.callClassifyError(ctx, kind)
	return c, err
}

// LoadDocument parses and validates a JSON policy document (at most 1 MiB).
func (e *Engine) LoadDocument(ctx context.Context, json []byte) (d PolicyDocument, err error) {
	text := string(json)
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "load-document", in, &err)
	d, err = in.callLoadDocument(ctx, text)
	return d, err
}

// Admit returns the schedule a new event of class is admitted under at
// nowMs (persist it with the event). The component re-validates the
// document, since a host may have built or altered it.
func (e *Engine) Admit(ctx context.Context, d PolicyDocument, class string, nowMs uint64) (a Admission, err error) {
	in, err := e.acquire(ctx)
	if err != nil {
		return
	}
	defer e.done(ctx, "admit", in, &err)
	a, err = in.callAdmit(ctx, &d, class, nowMs)
	return a, err
}

// LoadHealthDocument parses and validates a format-3 document (format 2
// with optional health sections, at most 1 MiB): each class with its
// effective section (its own, else the document's; nil: format 2), its
// policy hash and the words the section adds to it. The delivery engine
// (OpenDeliveryEngine) runs its health sections.
func (e *Engine) LoadHealthDocument(ctx context.Context, json []byte) (d HealthDocument, err error) {
	text := string(json)
	err = e.with(ctx, "load-health-document", func(in *instance) (err error) {
		d, err = in.callLoadHealthDocument(ctx, text)
		return err
	})
	return d, err
}

// VectorCase runs one conformance vector case inside the component (the
// test-only export `vector-case`, for the ops whose functions ABI 1.0 no
// longer exports): format is the vector file's `format` value and kase the
// case, each as JSON text exactly as in the file (numbers unrounded). nil:
// the case passed; a *CaseFailure: the component's reason it failed; any
// other error: the call itself failed (a trap, a done context).
func (e *Engine) VectorCase(ctx context.Context, format, kase string) error {
	err := e.withAnswer(ctx, "vector-case", func(in *instance) error { return in.callVectorCase(ctx, format, kase) })
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

// withAnswer is with for an export whose error is a string: that Err text
// comes back as an *answerError, the instance kept (a trap still discards
// it and is a *TrapError).
func (e *Engine) withAnswer(ctx context.Context, op string, fn func(*instance) error) error {
	var answer error
	err := e.with(ctx, op, func(in *instance) error {
		err := fn(in)
		if isGuestErr(err) {
			answer, err = &answerError{err.Error()}, nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return answer
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
