package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The Standard Webhooks reference vector: the reference Rust library's
// test_sign, standard-webhooks/standard-webhooks libraries/rust/src/lib.rs
// (the same vector is in its Swift and other libraries' tests).
const (
	vecSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
	vecID     = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk"
	vecTS     = int64(1649367553)
	vecBody   = `{"email":"test@example.com","username":"test_user"}`
	vecSig    = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="
)

func headers(id, ts, sig string) http.Header {
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, ts)
	h.Set(HeaderSignature, sig)
	return h
}

func TestHMACSHA256MatchesRFC4231(t *testing.T) {
	m := hmac.New(sha256.New, []byte("Jefe"))
	m.Write([]byte("what do ya want for nothing?"))
	if got := hex.EncodeToString(m.Sum(nil)); got != "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" {
		t.Fatal(got)
	}
}

func TestTheStandardWebhooksVectorSignsAndVerifies(t *testing.T) {
	s, err := ParseSecret(vecSecret)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Sign(vecID, vecTS, []byte(vecBody)); got != vecSig {
		t.Fatalf("signature %s, want %s", got, vecSig)
	}
	if err := Verify([]Secret{s}, headers(vecID, "1649367553", vecSig), []byte(vecBody), time.Unix(vecTS+10, 0), 0); err != nil {
		t.Fatal(err)
	}
}

func TestARotationSignsWithEverySecretAndEitherOneVerifies(t *testing.T) {
	old, _ := ParseSecret(vecSecret)
	next := SecretFromBytes([]byte("the new key"))
	h := http.Header{}
	SetHeaders(h, []Secret{next, old}, vecID, time.Unix(vecTS, 0), []byte(vecBody))
	if sig := h.Get(HeaderSignature); len(strings.Fields(sig)) != 2 || !strings.HasSuffix(sig, vecSig) {
		t.Fatalf("signature header %q", sig)
	}
	for _, receiver := range []Secret{old, next} {
		if err := Verify([]Secret{receiver}, h, []byte(vecBody), time.Unix(vecTS, 0), 0); err != nil {
			t.Error(err)
		}
	}
}

func TestATamperedBodyAStaleTimestampOrAWrongSecretIsRefused(t *testing.T) {
	s, _ := ParseSecret(vecSecret)
	other := SecretFromBytes([]byte("someone else"))
	at := time.Unix(vecTS, 0)
	ok := headers(vecID, "1649367553", vecSig)
	for name, c := range map[string]struct {
		secrets []Secret
		h       http.Header
		body    string
		now     time.Time
		want    error
	}{
		"tampered body":   {[]Secret{s}, ok, vecBody + " ", at, ErrNoMatch},
		"wrong secret":    {[]Secret{other}, ok, vecBody, at, ErrNoMatch},
		"too old":         {[]Secret{s}, ok, vecBody, at.Add(6 * time.Minute), ErrTooOld},
		"from the future": {[]Secret{s}, ok, vecBody, at.Add(-6 * time.Minute), ErrTooOld},
		"missing":         {[]Secret{s}, headers(vecID, "1649367553", ""), vecBody, at, ErrMissingHeaders},
		"bad timestamp":   {[]Secret{s}, headers(vecID, "soon", vecSig), vecBody, at, ErrBadTimestamp},
		"v2 only":         {[]Secret{s}, headers(vecID, "1649367553", strings.Replace(vecSig, "v1", "v2", 1)), vecBody, at, ErrNoMatch},
		"garbage":         {[]Secret{s}, headers(vecID, "1649367553", "v1,!!! ,,, v1"), vecBody, at, ErrNoMatch},
	} {
		if err := Verify(c.secrets, c.h, []byte(c.body), c.now, 0); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

func TestBadSecretsAreRefusedAndASecretNeverPrints(t *testing.T) {
	for _, bad := range []string{"", "whsec_", "whsec_not base64!"} {
		if _, err := ParseSecret(bad); !errors.Is(err, ErrBadSecret) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	s, _ := ParseSecret(vecSecret)
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s", s, s, s, s)} {
		if strings.Contains(out, "C2FVsBQIhrscChlQIMV") || strings.Contains(out, "\x0b") {
			t.Errorf("a secret printed: %q", out)
		}
	}
}
