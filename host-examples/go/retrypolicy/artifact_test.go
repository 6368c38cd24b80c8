package retrypolicy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantCode fails t unless err is an *ArtifactError with code whose
// message contains every one of want.
func wantCode(t *testing.T, err error, code ArtifactErrorCode, want ...string) *ArtifactError {
	t.Helper()
	var ae *ArtifactError
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("want a %s *ArtifactError, got %T %v", code, err, err)
	}
	for _, w := range want {
		if !strings.Contains(ae.Message, w) {
			t.Fatalf("the message %q does not say %q", ae.Message, w)
		}
	}
	return ae
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// another is the shipped artifact with one more custom section: it runs
// alike, its sha256 differs.
func another(tag string) []byte {
	return AppendCustomSection(embeddedArtifact, "test:"+tag, []byte(tag))
}

func writeFile(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "artifact.wasm")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func newEngine(t *testing.T, opts ...Option) *Engine {
	t.Helper()
	ctx := context.Background()
	e, err := New(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	return e
}

// tinyComponent is a component whose main module exports every function
// the glue calls, each one `() -> i32` answering answer: abi-version says
// answer, and every other call hands back a nonsense pointer.
func tinyComponent(answer byte) []byte {
	var exports []byte
	n := 0
	export := func(name string, kind byte) {
		exports = append(appendULEB(exports, uint32(len(name))), name...)
		exports = append(exports, kind, 0)
		n++
	}
	for _, name := range exportNames {
		export(name, 0)
		export("cabi_post_"+name, 0)
	}
	export(reallocExport, 0)
	export("memory", 2)
	section := func(out []byte, id byte, body []byte) []byte {
		return append(appendULEB(append(out, id), uint32(len(body))), body...)
	}
	m := append([]byte(nil), moduleHeader...)
	m = section(m, 1, []byte{1, 0x60, 0, 1, 0x7f})
	m = section(m, 3, []byte{1, 0})
	m = section(m, 5, []byte{1, 0, 1})
	m = section(m, 7, append(appendULEB(nil, uint32(n)), exports...))
	m = section(m, 10, []byte{1, 4, 0, 0x41, answer, 0x0b})
	return section(append([]byte(nil), componentHeader...), sectionCoreModule, m)
}

func TestByDefaultTheEngineRunsTheEmbeddedArtifact(t *testing.T) {
	t.Setenv(EnvArtifact, "")
	t.Setenv(EnvArtifactSHA256, "")
	info := newEngine(t).Info()
	want := ArtifactInfo{SHA256: digest(embeddedArtifact), ABI: "webhook:retry-policy@1.0.0", Source: "embedded"}
	if info != want {
		t.Fatalf("info %+v, want %+v", info, want)
	}
}

func TestTheEnvironmentsArtifactIsRunAndTheCallersWins(t *testing.T) {
	other := another("env")
	path := writeFile(t, other)
	t.Setenv(EnvArtifact, path)
	if info := newEngine(t).Info(); info.SHA256 != digest(other) || info.Source != path {
		t.Fatalf("with %s=%s: info %+v", EnvArtifact, path, info)
	}
	if info := newEngine(t, WithArtifact(embeddedArtifact)).Info(); info.SHA256 != digest(embeddedArtifact) || info.Source != "bytes" {
		t.Fatalf("WithArtifact beside the environment: info %+v", info)
	}
	mine := writeFile(t, another("path"))
	if info := newEngine(t, WithArtifactPath(mine)).Info(); info.Source != mine {
		t.Fatalf("WithArtifactPath beside the environment: info %+v", info)
	}
}

func TestASetButUnreadableArtifactPathIsAnErrorNotAFallback(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.wasm")
	t.Setenv(EnvArtifact, missing)
	_, err := New(context.Background())
	wantCode(t, err, ArtifactUnreadable, missing, "no such file")
	_, err = New(context.Background(), WithArtifactPath(missing))
	wantCode(t, err, ArtifactUnreadable, missing)
}

func TestAPinThatDoesNotMatchRefusesTheArtifactNamingBothDigests(t *testing.T) {
	t.Setenv(EnvArtifact, "")
	wrong := strings.Repeat("0", 64)
	_, err := New(context.Background(), WithExpectedSHA256(wrong))
	wantCode(t, err, ArtifactSHA256Mismatch, wrong, digest(embeddedArtifact))
	t.Setenv(EnvArtifactSHA256, wrong)
	_, err = New(context.Background())
	wantCode(t, err, ArtifactSHA256Mismatch, wrong)
	// the caller's pin wins over the environment's, in either case
	newEngine(t, WithExpectedSHA256(digest(embeddedArtifact)))
	newEngine(t, WithExpectedSHA256(strings.ToUpper(digest(embeddedArtifact))))
	_, err = New(context.Background(), WithExpectedSHA256(digest(embeddedArtifact)[1:]))
	wantCode(t, err, ArtifactPinInvalid, "is not a sha256: expected 64 hex digits (either case)")
}

func TestAnotherWITPackageVersionIsAnABIMismatchNamingBoth(t *testing.T) {
	renamed := []byte(strings.ReplaceAll(string(embeddedArtifact), "policy@1.0.0#", "policy@1.1.0#"))
	_, err := New(context.Background(), WithArtifact(renamed))
	wantCode(t, err, ArtifactABIMismatch, "artifact implements webhook:retry-policy@1.1.0", "this host speaks webhook:retry-policy@1.0.0 (abi 5)")
}

func TestAnotherABIVersionIsAnABIMismatch(t *testing.T) {
	_, err := New(context.Background(), WithArtifact(tinyComponent(6)))
	wantCode(t, err, ArtifactABIMismatch, "(abi 6)", "(abi 5)")
}

func TestAWrongKnownAnswerFailsTheSelfTest(t *testing.T) {
	_, err := New(context.Background(), WithArtifact(tinyComponent(ABIVersion)))
	wantCode(t, err, ArtifactSelfTestFailed, "plan(", "expected max_attempts 4")
}

func TestAnEmbeddedDocumentIsLoadedAndABadOneRefused(t *testing.T) {
	text := []byte(`{"version":"2026-12-02","classes":{"c":{"window_ms":60000,
	  "backoff":{"base_ms":1000,"factor":2.0,"cap_ms":8000,"jitter":"full"},
	  "budget":{"ratio":0.1,"window_ms":60000,"min_sample":10,"sliding":true}}}}`)
	e := newEngine(t, WithArtifact(AppendCustomSection(embeddedArtifact, documentSection, text)))
	doc, got, ok := e.ArtifactDocument()
	if !ok || doc.Version != "2026-12-02" || string(got) != string(text) || e.Info().DocumentVersion != "2026-12-02" {
		t.Fatalf("document %+v (ok %v), info %+v", doc, ok, e.Info())
	}
	_, err := New(context.Background(), WithArtifact(AppendCustomSection(embeddedArtifact, documentSection, []byte(`{"version":1}`))))
	ae := wantCode(t, err, ArtifactDocumentInvalid, documentSection)
	var pe *PolicyError
	if !errors.As(ae, &pe) {
		t.Fatalf("the cause is not the policy error: %v", ae.Err)
	}
}
