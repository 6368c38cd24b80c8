package replay

import (
	"errors"
	"flag"
	"io"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestAReplayIdCountsUpItsSuffix(t *testing.T) {
	for in, want := range map[string]string{"ev": "ev~r1", "ev~r1": "ev~r2", "ev~r9": "ev~r10", "ev~r": "ev~r~r1",
		"ev~rx": "ev~rx~r1", "ev~r01": "ev~r01~r1", "ev~r+1": "ev~r+1~r1"} {
		if got := NextID(in); got != want {
			t.Errorf("NextID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTheFilterChoosesDeadLettersByEndpointReasonAndHalfOpenTimeRange(t *testing.T) {
	reason, other := rp.StopReasonTerminalResponse, rp.StopReasonMaxAttemptsExhausted
	from, to := uint64(100), uint64(200)
	f := Filter{EndpointID: "a", StopReason: &reason, FromMs: &from, ToMs: &to}
	rec := func(ep string, r rp.StopReason, at uint64, status string) *journal.Record {
		return &journal.Record{EndpointID: ep, StopReason: &r, FinishedAtMs: at, Status: status}
	}
	for _, c := range []struct {
		r    *journal.Record
		want bool
	}{
		{rec("a", reason, 100, journal.StatusDeadLettered), true},
		{rec("a", reason, 199, journal.StatusDeadLettered), true},
		{rec("a", reason, 200, journal.StatusDeadLettered), false},
		{rec("a", reason, 99, journal.StatusDeadLettered), false},
		{rec("b", reason, 150, journal.StatusDeadLettered), false},
		{rec("a", other, 150, journal.StatusDeadLettered), false},
		{rec("a", reason, 150, journal.StatusDelivered), false},
	} {
		if got := f.Matches(c.r); got != c.want {
			t.Errorf("%+v: %v, want %v", c.r, got, c.want)
		}
	}
}

func TestBadReplayFlagsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--policy", "p"}, {"--store", "s"}, {"--store", "s", "--policy", "p", "--reason", "delivered"},
		{"--store", "s", "--policy", "p", "--limit", "0"}, {"--store", "s", "--policy", "p", "--from-ms", "-1"},
		{"--store", "s", "--policy", "p", "extra"}, {"--store", "s", "--policy", "p", "--bogus", "1"},
	} {
		if _, err := ParseArgs(args, io.Discard, true); !errors.Is(err, ErrUsage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	if _, err := ParseArgs([]string{"--help"}, io.Discard, true); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v", err)
	}
	a, err := ParseArgs([]string{"--store", "s", "--reason", "retry_window_elapsed", "--to-ms", "5", "--now-ms", "7"}, io.Discard, false)
	if err != nil || a.Filter.StopReason == nil || *a.Filter.StopReason != rp.StopReasonRetryWindowElapsed || a.Filter.FromMs != nil ||
		*a.Filter.ToMs != 5 || *a.NowMs != 7 || a.Filter.Limit != DefaultLimit {
		t.Fatalf("%+v %v", a, err)
	}
}
