package retrypolicy

import (
	"context"
	"errors"
)

// ReplicaArgs calls the export replica-args on the running artifact: the
// REPLICA command line judged once, in the component (docs/replica.md,
// "Flags"). request is `{"command", "args", "extras", "replica_id",
// "artifact_env"}` as JSON text; the answer, as JSON text, is every
// setting of the command resolved (defaults filled in, ranges and the
// rules across flags checked). A refused command line is an *ArgsError
// (the one line a replica prints before it exits 2, naming the flag); any
// other error is the call's own (a trap, a closed engine, a done context).
//
// --help, --version and an unknown flag are answered without the artifact
// from the GENERATED ReplicaUsage, ReplayUsage and ReplicaFlagNames.
func (e *Engine) ReplicaArgs(ctx context.Context, request string) (string, error) {
	text, err := withAnswer(ctx, e, "replica-args", func(in *instance) (string, error) {
		return in.callReplicaArgs(ctx, request)
	})
	var answer *answerError
	if errors.As(err, &answer) {
		return "", &ArgsError{Line: answer.msg}
	}
	return text, err
}

// ArgsError is a command line replica-args refused: Line names the flag
// (`--concurrency: expected a whole number from 1 to 65535, got "0"`).
type ArgsError struct{ Line string }

func (e *ArgsError) Error() string { return e.Line }
