package driver

import rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"

// The delivery engine's JSON batches (docs/engine.md section 14), typed:
// what the driver feeds and the actions it reads. Nothing here decides.

// input is one engine input (docs/engine.md section 2); unset fields are
// left out.
type input struct {
	Op         string   `json:"op"`
	NowMs      uint64   `json:"now_ms"`
	EventID    string   `json:"event_id,omitempty"`
	EndpointID string   `json:"endpoint_id,omitempty"`
	Target     string   `json:"target,omitempty"`
	Class      string   `json:"class,omitempty"`
	Attempt    uint32   `json:"attempt,omitempty"`
	Status     int      `json:"status,omitempty"`
	RetryAfter *string  `json:"retry_after,omitempty"`
	ErrorKind  string   `json:"error_kind,omitempty"`
	NotStarted bool     `json:"not_started,omitempty"`
	CallID     uint64   `json:"call_id,omitempty"`
	Reply      *[]int64 `json:"reply,omitempty"`
	Failed     bool     `json:"failed,omitempty"`
	Document   string   `json:"document,omitempty"`
	Journal    string   `json:"journal,omitempty"` // resume
	Copy       bool     `json:"copy,omitempty"`
	// replay's filter
	StopReason *string `json:"stop_reason,omitempty"`
	FromMs     *uint64 `json:"from_ms,omitempty"`
	ToMs       *uint64 `json:"to_ms,omitempty"`
	Limit      *uint64 `json:"limit,omitempty"`

	storeErr error  // a failed store call's error (logged, not fed)
	index    uint64 // an admission's event index (ids prefix-index)
	counted  bool   // an admission's id was new to the driver: it counted the event (see)
}

// action is one engine action; the fields of its kind are set.
type action struct {
	Action string `json:"action"`
	// journal, journal_truncate; journal_compact and snapshot (Journal)
	Line      string `json:"line"`
	KeepBytes int64  `json:"keep_bytes"`
	Journal   string `json:"journal"`
	// send (and the event of delivered, hold, warn)
	EventID            string  `json:"event_id"`
	Attempt            uint32  `json:"attempt"`
	EndpointID         string  `json:"endpoint_id"`
	Target             string  `json:"target"`
	BodyB64            *string `json:"body_b64"`
	StartBeforeMs      uint64  `json:"start_before_ms"`
	RefreshCredentials bool    `json:"refresh_credentials"`
	// store_call
	CallID uint64   `json:"call_id"`
	Key    string   `json:"key"`
	Argv   []string `json:"argv"`
	// delivered, dead_letter, hold
	Attempts   uint32 `json:"attempts"`
	DeadLetter *struct {
		EventID    string `json:"event_id"`
		StopReason string `json:"stop_reason"`
	} `json:"dead_letter"`
	Reason string `json:"reason"`
	// count, gauge
	Name  string            `json:"name"`
	Label map[string]string `json:"label"`
	Delta uint64            `json:"delta"`
	Value uint64            `json:"value"`
	// replayed (and resumed: IDs)
	Replayed        uint64   `json:"replayed"`
	AlreadyReplayed uint64   `json:"already_replayed"`
	SkippedNoClass  uint64   `json:"skipped_no_class"`
	IDs             []string `json:"ids"`
	// warn
	Message string `json:"message"`
}

// answer is the engine's answer to one batch (rp.EngineAnswer with typed actions).
type answer struct {
	Outputs   []action           `json:"outputs"`
	Errors    []rp.EngineRefusal `json:"errors"`
	TimeoutMs *uint64            `json:"timeout_ms"`
}
