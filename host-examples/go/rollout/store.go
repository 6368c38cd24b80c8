package rollout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// do makes the call the follower named and returns its answer (the next
// input); the bytes an `artifact` call fetched are kept in *fetched for the
// `load` that follows. An error means the call is never answered: ctx
// ended (the run ends: not the store's fault) or the engine cannot load
// (closed); the next tick abandons the pending one.
func (f *Follower) do(ctx context.Context, c *call, fetched *[]byte) (any, error) {
	var in map[string]any
	switch c.Op {
	case "tick": // HSET the status, GETRANGE the record: one round trip
		var get *redis.StringCmd
		err := bounded(ctx, f.cfg.Timeout, func(ctx context.Context) error {
			_, err := f.cfg.Client.Pipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, ReplicasKey, c.ReplicaID, c.Status)
				get = p.GetRange(ctx, StateKey, 0, recordLastByte)
				return nil
			})
			return err
		})
		if err != nil {
			err = fmt.Errorf("HSET %s, GETRANGE %s: %w", ReplicasKey, StateKey, err)
			in = reply("tick_reply", err)
		} else {
			in = reply("tick_reply", nil, "text", get.Val()) // "": no key, nothing published
		}
	case "artifact_len":
		var n int64
		err := bounded(ctx, f.cfg.Timeout, func(ctx context.Context) (err error) {
			n, err = f.cfg.Client.HStrLen(ctx, c.Key, "bytes").Result()
			return err
		})
		if err != nil {
			err = fmt.Errorf("HSTRLEN %s bytes: %w", c.Key, err)
		}
		in = reply("artifact_len", err, "len", n)
	case "artifact":
		var got []any
		err := bounded(ctx, max(f.cfg.Timeout, DefaultFetchTimeout), func(ctx context.Context) (err error) {
			got, err = f.cfg.Client.HMGet(ctx, c.Key, "bytes", "signature", "key_id").Result()
			return err
		})
		if err != nil {
			in = reply("artifact", fmt.Errorf("HMGET %s: %w", c.Key, err))
			break
		}
		field := func(i int) any { // a string, or nil when the field is nil
			if i < len(got) {
				if s, ok := got[i].(string); ok {
					return s
				}
			}
			return nil
		}
		var sum, size any // null when bytes is nil
		if raw, ok := field(0).(string); ok {
			digest := sha256.Sum256([]byte(raw))
			*fetched, sum, size = []byte(raw), hex.EncodeToString(digest[:]), len(raw)
		}
		in = reply("artifact", nil, "sha256", sum, "len", size, "signature", field(1), "key_id", field(2))
	case "load": // every load check of docs/artifact.md, then the swap
		_, err := f.cfg.Engine.SwapArtifactFrom(ctx, *fetched, Source, c.SHA256)
		*fetched = nil
		var ae *rp.ArtifactError
		switch {
		case err == nil:
			in = reply("loaded", nil)
		case !errors.As(err, &ae) || ctx.Err() != nil: // not the artifact's fault
			return nil, fmt.Errorf("loading %s: %w", c.SHA256, err)
		default:
			in = reply("loaded", nil, "code", string(ae.Code), "message", ae.Message)
		}
	default:
		return nil, fmt.Errorf("rollout: the follower asked for an unknown call %q", c.Op)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // a store call cut short by the run's end: nothing to report
	}
	return in, nil
}

// bounded runs one store command (or pipeline) within timeout.
func bounded(ctx context.Context, timeout time.Duration, call func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return call(ctx)
}
