package rollout

import (
	"fmt"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Kind is what a tick did.
type Kind int

// What a tick can do.
const (
	// Idle: the record's epoch is settled (or nothing is published).
	Idle Kind = iota
	// NoRecord: the store holds no record: nothing is published yet.
	NoRecord
	// Settled: a new epoch whose desired artifact already runs.
	Settled
	// Swapped: the desired artifact was fetched, verified, loaded and swapped in.
	Swapped
	// Refused: the record or the desired artifact was refused (Refusal
	// says why); the running artifact stays.
	Refused
	// StoreFailed: a store command failed or timed out; nothing changed
	// and the epoch is retried next tick.
	StoreFailed
	// StoreRecovered: the first tick that reached the store after failures.
	StoreRecovered
)

var kindNames = [...]string{"idle", "no_record", "settled", "swapped", "refused", "store_failed", "store_recovered"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Event is what a tick did, as the follower reports it.
type Event struct {
	Kind  Kind
	Epoch uint64 // the record's epoch (0: no record, or an invalid one)
	// Old and New are the artifacts before and after the tick (equal
	// unless Swapped).
	Old, New rp.ArtifactInfo
	Refusal  *Refusal // Refused
	Err      error    // StoreFailed
}

// String is the event's log line, docs/rollout.md's for a refusal
// (sha256=none when the record itself is invalid), a store failure and
// the first success after failures.
func (e Event) String() string {
	switch e.Kind {
	case Refused:
		desired := e.Refusal.SHA256
		if desired == "" {
			desired = "none"
		}
		return fmt.Sprintf("policy artifact refused source=%s sha256=%s code=%s: %s; keeping sha256=%s",
			Source, desired, e.Refusal.Code, e.Refusal.Message, e.Old.SHA256)
	case Swapped:
		return fmt.Sprintf("policy artifact swapped sha256=%s -> %s abi=%s document_version=%s source=%s (rollout epoch %d)",
			e.Old.SHA256, e.New.SHA256, e.New.ABI, e.New.DocumentVersion, e.New.Source, e.Epoch)
	case StoreFailed:
		return fmt.Sprintf("rollout: store unreachable, keeping sha256=%s, retrying every tick: %v", e.Old.SHA256, e.Err)
	case StoreRecovered:
		return "rollout: store reachable again"
	case Settled:
		return fmt.Sprintf("rollout: epoch %d settled: sha256=%s already runs", e.Epoch, e.Old.SHA256)
	}
	return "rollout: " + e.Kind.String()
}
