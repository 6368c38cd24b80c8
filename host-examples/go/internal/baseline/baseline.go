// Package baseline is a BASELINE: a plain Go port of the SPEC's decide,
// written only so the benchmarks can show what running the policy through
// wazero costs against native Go. It is NOT the policy: the retrypolicy
// package never imports it, and no host may use it to decide anything
// (the component is the one implementation every host runs). Its test
// checks it against the decide vectors so the comparison is like for like.
package baseline

import (
	"errors"
	"math"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// ErrInvalid is returned for any input the SPEC refuses (the baseline
// does not bother with codes and fields).
var ErrInvalid = errors.New("baseline: invalid input")

const (
	maxCapMs    = 86_400_000
	maxWindowMs = 2_592_000_000
)

func validBackoff(b rp.Backoff) bool {
	return b.BaseMs >= 1 && b.BaseMs <= b.CapMs && b.CapMs <= maxCapMs &&
		!math.IsInf(b.Factor, 0) && !math.IsNaN(b.Factor) && b.Factor >= 1.0 && b.Jitter <= rp.JitterEqual
}

func validPolicy(p rp.Policy) bool {
	r := p.Budget.Ratio
	return validBackoff(p.Backoff) && p.HardCap >= 1 && p.HardCap <= 100 && p.WindowMs <= maxWindowMs &&
		!math.IsNaN(r) && !math.IsInf(r, 0) && r > 0 && r <= 1 && p.Budget.WindowMs >= 1
}

// ceiling is the SPEC's ceiling_ms(i): repeated multiplication, no powi.
func ceiling(b rp.Backoff, i uint32) uint64 {
	base, capMs := float64(b.BaseMs), float64(b.CapMs)
	p := 1.0
	for k := uint32(0); k < i; k++ {
		next := p * b.Factor
		if next == p || base*next >= capMs {
			p = next
			break // later ceilings no longer change (or are all cap_ms)
		}
		p = next
	}
	raw := float64(base * p)
	if math.IsInf(raw, 0) || raw >= capMs {
		return b.CapMs
	}
	return uint64(math.Floor(raw))
}

func fnv1a64(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 0x100000001b3
	}
	return h
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	z := (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func delay(b rp.Backoff, eventID string, i uint32) uint64 {
	c := ceiling(b, i)
	var lo uint64
	switch b.Jitter {
	case rp.JitterNone:
		lo = c
	case rp.JitterEqual:
		lo = c / 2
	}
	return lo + splitmix64(fnv1a64(eventID)^uint64(i))%(c-lo+1)
}

// budgetAllows: each double operation rounded on its own (explicit
// conversions forbid fused multiply-add).
func budgetAllows(b rp.Budget, nowMs uint64, c rp.BudgetCounts) bool {
	w := 0.0
	if b.Sliding {
		w = float64(b.WindowMs-nowMs%b.WindowMs) / float64(b.WindowMs)
	}
	total := float64(c.Current.Total) + float64(float64(c.Previous.Total)*w)
	retries := float64(c.Current.Retries) + float64(float64(c.Previous.Retries)*w)
	if total < float64(b.MinSample) {
		return true
	}
	return retries+1.0 <= float64(b.Ratio*float64(total+1.0))
}

func classifyStatus(s uint16) rp.OutcomeClass {
	switch {
	case s >= 200 && s <= 299:
		return rp.OutcomeClassSuccess
	case s == 408 || s == 425 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504 || s == 507 || s == 509:
		return rp.OutcomeClassRetryable
	case s >= 500 && s <= 599: // any other 5xx
		return rp.OutcomeClassRetryable
	}
	return rp.OutcomeClassTerminal
}

func classifyError(kind string) rp.OutcomeClass {
	switch httpoutcome.TransportKind(kind) {
	case httpoutcome.ConnectTimeout, httpoutcome.ReadTimeout, httpoutcome.WriteTimeout, httpoutcome.PoolTimeout,
		httpoutcome.ConnectError, httpoutcome.RemoteProtocolError:
		return rp.OutcomeClassRetryable
	}
	return rp.OutcomeClassTerminal
}

func stop(reason rp.StopReason, disable bool, s rp.DeliveryState, elapsed uint64) rp.Decision {
	return rp.Decision{Stop: &rp.Stop{Reason: reason, DisableEndpoint: disable, DeadLetter: &rp.DeadLetter{
		EventID: s.EventID, EndpointID: s.EndpointID, Attempts: s.Attempt, ElapsedMs: elapsed, StopReason: reason,
	}}}
}

// DecideWith is the SPEC's pure decide.
func DecideWith(p rp.Policy, s rp.DeliveryState, o rp.AttemptOutcome, nowMs uint64, counts *rp.BudgetCounts) (rp.Decision, error) {
	if !validPolicy(p) || s.Attempt < 1 || s.MaxAttempts < 1 || s.MaxAttempts > 100 {
		return rp.Decision{}, ErrInvalid
	}
	var class rp.OutcomeClass
	var status uint16
	var retryAfter *uint64
	if r := o.Response; r != nil {
		if r.Status < 100 || r.Status > 599 {
			return rp.Decision{}, ErrInvalid
		}
		status, retryAfter, class = r.Status, r.RetryAfterMs, classifyStatus(r.Status)
	} else {
		class = classifyError(*o.TransportError)
	}
	refresh := false
	if status == 401 || status == 403 {
		if s.CredentialsRefreshed {
			class = rp.OutcomeClassTerminal
		} else {
			class, refresh = rp.OutcomeClassRetryable, true
		}
	}
	var elapsed uint64
	if nowMs > s.FirstAttemptedAtMs {
		elapsed = nowMs - s.FirstAttemptedAtMs
	}
	switch {
	case class == rp.OutcomeClassSuccess:
		return rp.Decision{Stop: &rp.Stop{Reason: rp.StopReasonDelivered}}, nil
	case class == rp.OutcomeClassTerminal:
		return stop(rp.StopReasonTerminalResponse, status == 410, s, elapsed), nil
	case s.Attempt >= s.MaxAttempts:
		return stop(rp.StopReasonMaxAttemptsExhausted, false, s, elapsed), nil
	case elapsed >= p.WindowMs:
		return stop(rp.StopReasonRetryWindowElapsed, false, s, elapsed), nil
	}
	d := delay(p.Backoff, s.EventID, s.Attempt-1)
	if retryAfter != nil && *retryAfter > d {
		d = *retryAfter
	}
	if sum := elapsed + d; sum < elapsed || sum > p.WindowMs { // saturating add
		return stop(rp.StopReasonRetryWindowElapsed, false, s, elapsed), nil
	}
	if counts == nil {
		return stop(rp.StopReasonBudgetUnavailable, false, s, elapsed), nil
	}
	if !budgetAllows(p.Budget, nowMs, *counts) {
		return stop(rp.StopReasonRetryBudgetExhausted, false, s, elapsed), nil
	}
	return rp.Decision{Retry: &rp.Retry{DelayMs: d, RefreshCredentials: refresh}}, nil
}
