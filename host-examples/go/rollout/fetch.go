package rollout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// fetch is steps 2 to 6 of docs/rollout.md "What a replica does" for the
// artifact desired: HSTRLEN (0: missing; over the cap: too large, never
// fetched), HMGET bytes signature key_id, the key, the signature, the
// digest. It returns the bytes, an *Error (a refusal), or another error
// (a store failure: the epoch is retried next tick).
func (f *Follower) fetch(ctx context.Context, desired string) ([]byte, error) {
	key := ArtifactKey(desired)
	var size int64
	if err := bounded(ctx, f.cfg.Timeout, func(ctx context.Context) (err error) {
		size, err = f.cfg.Client.HStrLen(ctx, key, "bytes").Result()
		return err
	}); err != nil {
		return nil, fmt.Errorf("HSTRLEN %s bytes: %w", key, err)
	}
	switch {
	case size == 0:
		return nil, errorf(CodeArtifactMissing, "%s has no bytes", key)
	case size > rp.MaxArtifactBytes:
		return nil, errorf(CodeArtifactTooLarge, "%s is %d bytes; an artifact is at most %d bytes (4 MiB); not fetched", key, size, rp.MaxArtifactBytes)
	}
	var fields []any
	if err := bounded(ctx, f.cfg.FetchTimeout, func(ctx context.Context) (err error) {
		fields, err = f.cfg.Client.HMGet(ctx, key, "bytes", "signature", "key_id").Result()
		return err
	}); err != nil {
		return nil, fmt.Errorf("HMGET %s: %w", key, err)
	}
	var got [3]string
	for i, name := range []string{"bytes", "signature", "key_id"} {
		var s string
		ok := i < len(fields)
		if ok {
			s, ok = fields[i].(string)
		}
		if !ok {
			return nil, errorf(CodeArtifactMissing, "%s has no field %s", key, name)
		}
		got[i] = s
	}
	raw, signature, keyID := []byte(got[0]), got[1], got[2]
	if len(raw) > rp.MaxArtifactBytes { // rewritten between the two commands
		return nil, errorf(CodeArtifactTooLarge, "%s grew to %d bytes; an artifact is at most %d bytes (4 MiB)", key, len(raw), rp.MaxArtifactBytes)
	}
	sum := sha256.Sum256(raw)
	digest := hex.EncodeToString(sum[:])
	if err := f.cfg.Trusted.Verify(keyID, signature, digest); err != nil {
		return nil, err
	}
	if digest != desired {
		return nil, errorf(CodeArtifactSHA256Mismatch, "the bytes of %s have sha256 %s", key, digest)
	}
	return raw, nil
}
