package retrypolicy

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Lifting: values the guest hands back (in its linear memory, at the
// return-area pointer) into Go values. Everything is copied out before the
// function's `cabi_post_*` frees it. A malformed value (bad discriminant,
// pointer outside memory, invalid UTF-8) is an ABI error: the call fails
// with a *TrapError and the instance is discarded.

// abiError reports a value the guest should never have produced.
type abiError struct{ msg string }

func (e *abiError) Error() string { return "canonical ABI: " + e.msg }

func abiErrorf(format string, args ...any) error { return &abiError{fmt.Sprintf(format, args...)} }

// view returns n bytes of guest memory at ptr (valid until memory grows).
func (in *instance) view(ptr, n uint32) ([]byte, error) {
	b, ok := in.mem.Read(ptr, n)
	if !ok {
		return nil, abiErrorf("%d bytes at %#x are outside memory", n, ptr)
	}
	return b, nil
}

// liftString copies the string whose ptr/len are at b[off:].
func (in *instance) liftString(b []byte, off int) (string, error) {
	ptr, n := le.Uint32(b[off:]), le.Uint32(b[off+4:])
	raw, err := in.view(ptr, n)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(raw) {
		return "", abiErrorf("a string at %#x is not valid UTF-8", ptr)
	}
	return string(raw), nil
}

func liftBool(b []byte, off int) (bool, error) {
	switch b[off] {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, abiErrorf("bool byte %d", b[off])
}

// liftTag reads a discriminant that must be below n.
func liftTag(b []byte, off int, n uint8, what string) (uint8, error) {
	if t := b[off]; t < n {
		return t, nil
	}
	return 0, abiErrorf("%s discriminant %d out of range", what, b[off])
}

// liftResult reads result<T, policy-error> at b: ok reports the ok case;
// otherwise err is the lifted *PolicyError.
func (in *instance) liftResult(b []byte, payload int) (ok bool, err error) {
	tag, err := liftTag(b, 0, 2, "result")
	if err != nil || tag == 0 {
		return tag == 0 && err == nil, err
	}
	return false, in.liftPolicyError(b[payload:])
}

func (in *instance) liftPolicyError(b []byte) error {
	code, err := liftTag(b, offErrorCode, uint8(len(errorCodes)), "error-code")
	if err != nil {
		return err
	}
	field, err := in.liftString(b, offErrorField)
	if err != nil {
		return err
	}
	msg, err := in.liftString(b, offErrorMessage)
	if err != nil {
		return err
	}
	return &PolicyError{Code: errorCodes[code], Field: field, Message: msg}
}

func (in *instance) liftSchedule(b []byte) (Schedule, error) {
	limited, err := liftTag(b, offSchedLimited, uint8(len(limitedByNames)), "limited-by")
	if err != nil {
		return Schedule{}, err
	}
	ptr, n := le.Uint32(b[offSchedOffsets:]), le.Uint32(b[offSchedOffsets+4:])
	if n > math.MaxUint32/8 {
		return Schedule{}, abiErrorf("offsets list of %d elements", n)
	}
	raw, err := in.view(ptr, n*8)
	if err != nil {
		return Schedule{}, err
	}
	offsets := make([]uint64, n)
	for i := range offsets {
		offsets[i] = le.Uint64(raw[i*8:])
	}
	return Schedule{
		MaxAttempts:     le.Uint32(b[offSchedMax:]),
		ExpectedSpanMs:  le.Uint64(b[offSchedSpan:]),
		OffsetsMs:       offsets,
		WorstCaseSpanMs: le.Uint64(b[offSchedWorst:]),
		LimitedBy:       LimitedBy(limited),
	}, nil
}

func liftBackoff(b []byte) (Backoff, error) {
	j, err := liftTag(b, offBackoffJitter, uint8(len(jitterNames)), "jitter")
	return Backoff{
		BaseMs: le.Uint64(b[offBackoffBase:]),
		Factor: math.Float64frombits(le.Uint64(b[offBackoffFactor:])),
		CapMs:  le.Uint64(b[offBackoffCap:]),
		Jitter: Jitter(j),
	}, err
}

func liftPolicy(b []byte) (Policy, error) {
	bo, err := liftBackoff(b[offPolicyBackoff:])
	if err != nil {
		return Policy{}, err
	}
	sliding, err := liftBool(b, offPolicyBudget+offBudgetSliding)
	if err != nil {
		return Policy{}, err
	}
	bu := b[offPolicyBudget:]
	return Policy{
		Backoff:  bo,
		WindowMs: le.Uint64(b[offPolicyWindow:]),
		HardCap:  le.Uint32(b[offPolicyHardCap:]),
		Budget: Budget{
			Ratio:     math.Float64frombits(le.Uint64(bu[offBudgetRatio:])),
			WindowMs:  le.Uint64(bu[offBudgetWindow:]),
			MinSample: le.Uint64(bu[offBudgetMinSample:]),
			Sliding:   sliding,
		},
	}, nil
}

// liftDocument reads a policy-document record at b.
func (in *instance) liftDocument(b []byte) (PolicyDocument, error) {
	version, err := in.liftString(b, offDocVersion)
	if err != nil {
		return PolicyDocument{}, err
	}
	ptr, n := le.Uint32(b[offDocClasses:]), le.Uint32(b[offDocClasses+4:])
	if n > math.MaxUint32/sizeEventClass {
		return PolicyDocument{}, abiErrorf("class list of %d elements", n)
	}
	raw, err := in.view(ptr, n*sizeEventClass)
	if err != nil {
		return PolicyDocument{}, err
	}
	classes := make([]EventClass, n)
	for i := range classes {
		rec := raw[i*sizeEventClass:]
		if classes[i].Name, err = in.liftString(rec, offClassName); err != nil {
			return PolicyDocument{}, err
		}
		if classes[i].Policy, err = liftPolicy(rec[offClassPolicy:]); err != nil {
			return PolicyDocument{}, err
		}
	}
	return PolicyDocument{Version: version, Classes: classes}, nil
}

// liftDecision reads a decision variant at b.
func (in *instance) liftDecision(b []byte) (Decision, error) {
	tag, err := liftTag(b, 0, 2, "decision")
	if err != nil {
		return Decision{}, err
	}
	p := b[offDecisionPayload:]
	if tag == 0 {
		refresh, err := liftBool(p, offRetryRefresh)
		return Decision{Retry: &Retry{DelayMs: le.Uint64(p[offRetryDelay:]), RefreshCredentials: refresh}}, err
	}
	reason, err := liftTag(p, offStopReason, uint8(len(stopReasonNames)), "stop-reason")
	if err != nil {
		return Decision{}, err
	}
	disable, err := liftBool(p, offStopDisable)
	if err != nil {
		return Decision{}, err
	}
	stop := &Stop{Reason: StopReason(reason), DisableEndpoint: disable}
	hasDL, err := liftTag(p, offStopDLTag, 2, "option<dead-letter>")
	if err != nil {
		return Decision{}, err
	}
	if hasDL == 1 {
		if stop.DeadLetter, err = in.liftDeadLetter(p[offStopDL:]); err != nil {
			return Decision{}, err
		}
	}
	return Decision{Stop: stop}, nil
}

func (in *instance) liftDeadLetter(b []byte) (*DeadLetter, error) {
	reason, err := liftTag(b, offDLReason, uint8(len(stopReasonNames)), "stop-reason")
	if err != nil {
		return nil, err
	}
	ev, err := in.liftString(b, offDLEventID)
	if err != nil {
		return nil, err
	}
	ep, err := in.liftString(b, offDLEndpointID)
	if err != nil {
		return nil, err
	}
	return &DeadLetter{
		EventID:    ev,
		EndpointID: ep,
		Attempts:   le.Uint32(b[offDLAttempts:]),
		ElapsedMs:  le.Uint64(b[offDLElapsed:]),
		StopReason: StopReason(reason),
	}, nil
}

func (in *instance) liftAdmission(b []byte) (Admission, error) {
	var a Admission
	var err error
	for _, f := range []struct {
		at  int
		dst *string
	}{{offAdmClass, &a.Class}, {offAdmVersion, &a.PolicyVersion}, {offAdmHash, &a.PolicyHash}} {
		if *f.dst, err = in.liftString(b, f.at); err != nil {
			return Admission{}, err
		}
	}
	a.FirstAttemptedAtMs = le.Uint64(b[offAdmFirstAt:])
	a.DeadlineMs = le.Uint64(b[offAdmDeadline:])
	a.Schedule, err = in.liftSchedule(b[offAdmSchedule:])
	return a, err
}
