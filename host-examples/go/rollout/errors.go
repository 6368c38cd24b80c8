package rollout

import rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"

// Error is a refusal: its code and a sentence saying what was expected
// and what was found (the component's, or ReadTrustFile's). Match it with
// errors.As.
type Error = rp.RolloutError

// The codes a Follower's setup or tick can give.
const (
	// CodeTrustInvalid: the trust file cannot be read, or its text holds
	// no Ed25519 public key or something else (a setup error).
	CodeTrustInvalid = "rollout_trust_invalid"
	// CodeInputInvalid: the component refused a config or an input (a
	// replica id outside 1 to 200 bytes; otherwise a bug of this package).
	CodeInputInvalid = "rollout_input_invalid"
)
