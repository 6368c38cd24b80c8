package retrypolicy

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Host-side checks: only what the canonical ABI cannot carry. Every
// semantic rule (ranges, ordering, the policy itself) is checked by the
// component, so every host reports the same code for the same input.

// checkString: a WIT string must be valid UTF-8 and addressable in a 32-bit memory.
func checkString(field, s string) error {
	if len(s) > math.MaxInt32 {
		return invalidInput(field, "is %d bytes, too long", len(s))
	}
	if !utf8.ValidString(s) {
		return invalidInput(field, "is not valid UTF-8")
	}
	return nil
}

// checkJitter: the WIT enum has three cases; an unknown jitter is
// invalid_backoff per the SPEC.
func checkJitter(field string, j Jitter) error {
	if int(j) < len(jitterNames) {
		return nil
	}
	return &PolicyError{Code: CodeInvalidBackoff, Field: field,
		Message: fmt.Sprintf("unknown jitter %d (expected none, full or equal)", j)}
}

func checkPolicy(prefix string, p Policy) error {
	return checkJitter(prefix+"backoff.jitter", p.Backoff.Jitter)
}

func checkState(s DeliveryState) error {
	if err := checkString("state.event_id", s.EventID); err != nil {
		return err
	}
	return checkString("state.endpoint_id", s.EndpointID)
}

func checkOutcome(o Outcome) error {
	if o.Response != nil && o.ErrorKind != "" {
		return invalidInput("outcome", "has both a response and an error kind; set exactly one")
	}
	return checkString("outcome.error_kind", o.ErrorKind)
}

func checkDecide(p Policy, s DeliveryState, o Outcome) error {
	if err := checkPolicy("policy.", p); err != nil {
		return err
	}
	if err := checkState(s); err != nil {
		return err
	}
	return checkOutcome(o)
}

func checkDocument(d PolicyDocument) error {
	if err := checkString("document.version", d.Version); err != nil {
		return err
	}
	if len(d.Classes) > math.MaxInt32/sizeEventClass {
		return invalidInput("document.classes", "has %d classes, too many", len(d.Classes))
	}
	for i, c := range d.Classes {
		if err := checkString(fmt.Sprintf("document.classes[%d].name", i), c.Name); err != nil {
			return err
		}
		if err := checkPolicy(fmt.Sprintf("document.classes[%d].policy.", i), c.Policy); err != nil {
			return err
		}
	}
	return nil
}
