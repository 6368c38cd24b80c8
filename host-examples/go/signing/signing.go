// Package signing signs webhook deliveries the Standard Webhooks way
// (https://www.standardwebhooks.com): the headers webhook-id,
// webhook-timestamp (Unix seconds) and webhook-signature, which carries
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)) for
// every secret in use (several, space-separated, during a rotation). A
// secret is written "whsec_" + base64(key). Verify is the receiver's side:
// a tolerance window around the timestamp and a constant-time compare.
//
// Secrets never appear in an error message or a String(): a Secret prints
// as "whsec_…(redacted)".
package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
	secretPrefix    = "whsec_"
)

// DefaultTolerance is how far a receiver accepts a timestamp from its clock.
const DefaultTolerance = 5 * time.Minute

// Secret is one signing key.
type Secret struct{ key []byte }

// Errors (none of them carries a secret, a signature or a body).
var (
	ErrBadSecret      = errors.New("signing: a secret is whsec_ followed by base64 of at least 1 byte")
	ErrMissingHeaders = errors.New("signing: webhook-id, webhook-timestamp or webhook-signature is missing")
	ErrBadTimestamp   = errors.New("signing: webhook-timestamp is not a whole number of seconds")
	ErrTooOld         = errors.New("signing: webhook-timestamp is outside the tolerance window")
	ErrNoMatch        = errors.New("signing: no signature matches")
)

// ParseSecret reads "whsec_<base64>" (the prefix is optional, padding too).
func ParseSecret(s string) (Secret, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), secretPrefix)
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		key, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	if err != nil || len(key) == 0 {
		return Secret{}, ErrBadSecret
	}
	return Secret{key: key}, nil
}

// SecretFromBytes wraps a raw key.
func SecretFromBytes(key []byte) Secret { return Secret{key: append([]byte(nil), key...)} }

// String never shows the key.
func (Secret) String() string { return secretPrefix + "…(redacted)" }

// GoString never shows the key either (%#v).
func (s Secret) GoString() string { return s.String() }

// Sign is the v1 signature of one message under s.
func (s Secret) Sign(id string, timestamp int64, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(mac(s.key, id, strconv.FormatInt(timestamp, 10), body))
}

func mac(key []byte, id, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// SignatureHeader is the webhook-signature value: one v1 signature per
// secret, space-separated, in the order given.
func SignatureHeader(secrets []Secret, id string, timestamp int64, body []byte) string {
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		sigs[i] = s.Sign(id, timestamp, body)
	}
	return strings.Join(sigs, " ")
}

// SetHeaders signs a request's body: webhook-id, webhook-timestamp and
// webhook-signature. With no secret nothing is set but the id.
func SetHeaders(h http.Header, secrets []Secret, id string, now time.Time, body []byte) {
	ts := now.Unix()
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	if len(secrets) > 0 {
		h.Set(HeaderSignature, SignatureHeader(secrets, id, ts, body))
	}
}

// Verify checks a received message: the timestamp within tolerance of now
// (0 = DefaultTolerance), and at least one v1 signature in the header made
// with one of the secrets (compared in constant time).
func Verify(secrets []Secret, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, ts, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" || ts == "" || sigs == "" {
		return ErrMissingHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrBadTimestamp
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	for _, s := range secrets {
		want := mac(s.key, id, ts, body)
		for _, sig := range strings.Fields(sigs) {
			version, b64, ok := strings.Cut(sig, ",")
			if !ok || version != "v1" {
				continue
			}
			got, err := base64.StdEncoding.DecodeString(b64)
			if err == nil && hmac.Equal(got, want) {
				return nil
			}
		}
	}
	return ErrNoMatch
}
