package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// seeds adds every record and trust text of the vectors to f.
func seeds(f *testing.F, group, field string) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "tests", "vectors-rollout", "rollout.json"))
	if err != nil {
		f.Fatal(err)
	}
	var doc map[string]json.RawMessage
	var cases []map[string]any
	if json.Unmarshal(raw, &doc) != nil || json.Unmarshal(doc[group], &cases) != nil {
		f.Fatal("rollout.json does not read")
	}
	for _, c := range cases {
		if s, ok := c[field].(string); ok {
			f.Add([]byte(s))
		}
	}
}

// Any text is either refused with rollout_record_invalid or is exactly the
// canonical text of a record that keeps every rule (never a panic).
func FuzzARecordIsRefusedOrIsItsOwnCanonicalText(f *testing.F) {
	seeds(f, "select", "record")
	f.Fuzz(func(t *testing.T, text []byte) {
		rec, err := ParseRecord(text)
		var re *Error
		switch {
		case err == nil:
			if !bytes.Equal(rec.Canonical(), text) || rec.V != 1 || rec.Epoch < 1 || rec.Epoch > MaxEpoch || !IsSHA256(rec.Stable) ||
				len(rec.Previous) > MaxPrevious || (rec.Canary != nil && (rec.Canary.Percent < 1 || rec.Canary.Percent > 100 || rec.Canary.SHA256 == rec.Stable)) {
				t.Fatalf("accepted %q as %+v", text, rec)
			}
		case !errors.As(err, &re) || re.Code != CodeRecordInvalid:
			t.Fatalf("%q: %v is not rollout_record_invalid", text, err)
		}
	})
}

// Any trust text gives key ids or rollout_trust_invalid (never a panic).
func FuzzATrustTextGivesKeysOrRolloutTrustInvalid(f *testing.F) {
	seeds(f, "trust", "pem")
	f.Fuzz(func(t *testing.T, text []byte) {
		trusted, err := ParseTrust(text)
		var re *Error
		switch {
		case err == nil:
			if len(trusted.KeyIDs()) == 0 {
				t.Fatalf("%q: trusted with no key", text)
			}
		case !errors.As(err, &re) || re.Code != CodeTrustInvalid:
			t.Fatalf("%q: %v is not rollout_trust_invalid", text, err)
		}
	})
}
