package retrypolicy

import (
	"context"
	"errors"
	"strings"
)

// The fleet rollout's follower (docs/rollout.md, "The follower in the
// component"): a sans-IO state machine inside the artifact. The host keeps
// its state text between steps, so a swap of the artifact the follower
// runs on loses nothing; package rollout drives it over Redis.

// RolloutOpen calls the export rollout-open on the running artifact: the
// config JSON text to the answer `{"state", "key_ids"}` as JSON text. The
// follower's refusal is a *RolloutError (rollout_trust_invalid,
// rollout_input_invalid); any other error is the call's own (a trap, a
// closed engine, a done context).
func (e *Engine) RolloutOpen(ctx context.Context, config string) (string, error) {
	return rolloutAnswer(withAnswer(ctx, e, "rollout-open", func(in *instance) (string, error) {
		return in.callRolloutOpen(ctx, config)
	}))
}

// RolloutStep calls the export rollout-step on the running artifact: the
// last state text and one input (JSON text) to the answer `{"state",
// "call", "log", "refused", "swapped"}` as JSON text. An input the follower
// cannot take is a *RolloutError (rollout_input_invalid) and changes
// nothing: keep the state text.
func (e *Engine) RolloutStep(ctx context.Context, state, input string) (string, error) {
	return rolloutAnswer(withAnswer(ctx, e, "rollout-step", func(in *instance) (string, error) {
		return in.callRolloutStep(ctx, state, input)
	}))
}

// RolloutError is the follower's `code: sentence` error, split.
type RolloutError struct {
	Code    string // rollout_trust_invalid, rollout_input_invalid
	Message string
}

func (e *RolloutError) Error() string { return e.Code + ": " + e.Message }

func rolloutAnswer(text string, err error) (string, error) {
	var answer *answerError
	if errors.As(err, &answer) {
		code, message, _ := strings.Cut(answer.msg, ": ")
		return "", &RolloutError{Code: code, Message: message}
	}
	return text, err
}
