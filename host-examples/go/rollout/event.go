package rollout

import rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"

// Event is what one tick did, as the component's follower said it.
type Event struct {
	// Log is the follower's lines for the replica's log, in order
	// (docs/rollout.md): a refusal, the first store failure of a run of
	// failures, the first success after them.
	Log []string
	// Refused is the refusal this tick made (the running artifact stays;
	// count webhook_policy_reloads_total{result="refused"}).
	Refused *Refusal
	// Swapped: the desired artifact was fetched, verified, loaded and
	// swapped in (count {result="applied"}); Old and New are the artifacts
	// before and after the tick.
	Swapped  bool
	Old, New rp.ArtifactInfo
	// Err ends a tick early with its epoch unsettled: the component
	// refused an input (rollout_input_invalid, an *Error: a bug), the
	// engine is closed, or ctx ended mid-call (never reported).
	Err error
}

// Refusal is an artifact (or a record) the follower refused, as the
// status record carries it.
type Refusal struct {
	// SHA256 is the desired artifact's; "" (null on the wire) when the
	// record itself was refused (rollout_record_invalid).
	SHA256  string `json:"sha256"`
	Code    string `json:"code"`
	Message string `json:"message"`
	AtMs    int64  `json:"at_ms"`
}

// worthReporting: something to log or count.
func (e Event) worthReporting() bool {
	return len(e.Log) > 0 || e.Refused != nil || e.Swapped || e.Err != nil
}
