package replay

import (
	"errors"
	"flag"
	"fmt"
	"io"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Args are the replay command's flags (docs/health-dispatch.md section 4).
type Args struct {
	Store      string // --store: the journal (the replica's file, the dispatcher's directory)
	PolicyPath string // --policy ("" when not given)
	Filter     Filter
	NowMs      *uint64 // --now-ms (nil: the wall clock)
	Artifact   string  // --artifact ("" = the default artifact)
}

// ErrUsage wraps every refusal of ParseArgs (exit 2).
var ErrUsage = errors.New("replay")

// ParseArgs reads the replay command's flags (after "replay"): --store,
// --policy (required when policyRequired), --endpoint, --reason,
// --from-ms, --to-ms, --limit, --now-ms, --artifact. flag.ErrHelp for
// --help.
func ParseArgs(args []string, stderr io.Writer, policyRequired bool) (Args, error) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var a Args
	var reason string
	var fromMs, toMs, nowMs uint64
	fs.StringVar(&a.Store, "store", "", "the journal to replay from (required)")
	fs.StringVar(&a.PolicyPath, "policy", "", "the current policy document")
	fs.StringVar(&a.Filter.EndpointID, "endpoint", "", "only dead letters of this endpoint")
	fs.StringVar(&reason, "reason", "", "only dead letters of this stop reason")
	fs.Uint64Var(&fromMs, "from-ms", 0, "only dead letters finished at or after this instant")
	fs.Uint64Var(&toMs, "to-ms", 0, "only dead letters finished before this instant")
	fs.IntVar(&a.Filter.Limit, "limit", DefaultLimit, "replay at most this many")
	fs.Uint64Var(&nowMs, "now-ms", 0, "the replay instant (tests; default the wall clock)")
	fs.StringVar(&a.Artifact, "artifact", "", "the policy artifact")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return a, err
		}
		return a, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return a, fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	if a.Store == "" {
		return a, fmt.Errorf("%w: --store is required", ErrUsage)
	}
	if policyRequired && a.PolicyPath == "" {
		return a, fmt.Errorf("%w: --policy is required", ErrUsage)
	}
	if a.Filter.Limit < 1 {
		return a, fmt.Errorf("%w: --limit %d: want at least 1", ErrUsage, a.Filter.Limit)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["reason"] {
		r, ok := rp.ParseStopReason(reason)
		if !ok || r == rp.StopReasonDelivered {
			return a, fmt.Errorf("%w: --reason %q is not the stop reason of a dead letter", ErrUsage, reason)
		}
		a.Filter.StopReason = &r
	}
	if set["from-ms"] {
		a.Filter.FromMs = &fromMs
	}
	if set["to-ms"] {
		a.Filter.ToMs = &toMs
	}
	if set["now-ms"] {
		a.NowMs = &nowMs
	}
	return a, nil
}
