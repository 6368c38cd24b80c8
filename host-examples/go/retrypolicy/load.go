package retrypolicy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// exportPrefix starts the core export name of every function of the WIT
// interface `policy` this host speaks (the generated exportNames).
const exportPrefix = "webhook:retry-policy/policy@"

// abiPackageVersion is ABI's version ("1.0.0").
var abiPackageVersion = strings.TrimPrefix(ABI, "webhook:retry-policy@")

// load runs the checks of docs/artifact.md on raw (pin, container, ABI,
// self-test, embedded document) and returns the loaded generation, not
// yet current; pin is "" or lower-case hex (pinOf checked it). Every
// refusal is an *ArtifactError.
func (e *Engine) load(ctx context.Context, raw []byte, source, pin string) (*generation, error) {
	if len(raw) > MaxArtifactBytes {
		return nil, tooLarge(source, int64(len(raw)))
	}
	sum := sha256.Sum256(raw)
	digest := hex.EncodeToString(sum[:])
	if pin != "" && pin != digest {
		return nil, artifactErrorf(ArtifactSHA256Mismatch, nil, "the artifact %s has sha256 %s; expected %s", source, digest, pin)
	}
	c, err := readContainer(raw)
	if err != nil {
		return nil, err
	}
	if err := checkExports(c.exports); err != nil {
		return nil, err
	}
	compiled, err := e.rt.CompileModule(ctx, c.core)
	if err != nil {
		return nil, artifactErrorf(ArtifactInvalid, err, "wazero refused the main core module: %v", err)
	}
	g := newGeneration(compiled, e.maxIdle)
	g.info = ArtifactInfo{SHA256: digest, ABI: ABI, Source: source}
	if err := e.check(ctx, g, c); err != nil {
		g.retire()
		return nil, err
	}
	return g, nil
}

// check runs g's first instance, abi-version, the self-test and the
// embedded document.
func (e *Engine) check(ctx context.Context, g *generation, c container) error {
	in, err := newInstance(ctx, e.rt, g.compiled)
	if err != nil {
		return artifactErrorf(ArtifactInvalid, err, "wazero could not instantiate the main core module: %v", err)
	}
	in.home, in.gen = &g.pool, g
	g.pool.put(in)
	v, err := onInstance(ctx, e, g, "abi-version", func(in *instance) (uint32, error) { return in.callABIVersion(ctx) })
	if err != nil {
		return artifactErrorf(ArtifactSelfTestFailed, err, "abi-version() failed: %v", err)
	}
	if v != ABIVersion {
		return artifactErrorf(ArtifactABIMismatch, nil, "artifact implements %s (abi %d); this host speaks %s (abi %d)",
			ABI, v, ABI, ABIVersion)
	}
	if err := e.selfTest(ctx, g); err != nil {
		return err
	}
	text, ok := c.custom[documentSection]
	if !ok {
		return nil
	}
	// format 2 or 3 (docs/artifact.md step 6): load-health-document reads
	// format 2 exactly as load-document does, and health sections too
	hdoc, err := onInstance(ctx, e, g, "load-health-document", func(in *instance) (HealthDocument, error) {
		return in.callLoadHealthDocument(ctx, string(text))
	})
	if err != nil {
		return artifactErrorf(ArtifactDocumentInvalid, err, "the embedded document (custom section %s) does not load: %v", documentSection, err)
	}
	doc := formatTwoOf(hdoc)
	g.document, g.healthDocument, g.documentText, g.info.DocumentVersion = &doc, &hdoc, text, doc.Version
	return nil
}

// formatTwoOf is d's classes without their health sections: the
// format-2 view (admit, the version, ArtifactDocument) of a document.
func formatTwoOf(d HealthDocument) PolicyDocument {
	out := PolicyDocument{Version: d.Version, Classes: make([]EventClass, 0, len(d.Classes))}
	for _, c := range d.Classes {
		out.Classes = append(out.Classes, EventClass{Name: c.Name, Policy: c.Policy})
	}
	return out
}

// checkExports is the ABI check on the main module's export names: every
// function the glue calls, under this host's WIT package version.
func checkExports(exports []string) error {
	var missing []string
	for _, name := range exportNames {
		if !slices.Contains(exports, name) {
			missing = append(missing, strings.TrimPrefix(name, exportPrefix+abiPackageVersion+"#"))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	found := "unknown"
	for _, name := range exports {
		if v, ok := strings.CutPrefix(name, exportPrefix); ok {
			if at := strings.IndexByte(v, '#'); at > 0 && v[:at] != abiPackageVersion {
				found = v[:at]
				break
			}
		}
	}
	if found == "unknown" && len(missing) < len(exportNames) {
		found = abiPackageVersion + " without " + strings.Join(missing, ", ")
	}
	return artifactErrorf(ArtifactABIMismatch, nil, "artifact implements webhook:retry-policy@%s (abi unknown); this host speaks %s (abi %d)",
		found, ABI, ABIVersion)
}

// selfTest asks g the known answers of docs/artifact.md through the
// normal call path; a differing answer or a trap refuses the artifact.
func (e *Engine) selfTest(ctx context.Context, g *generation) error {
	fail := func(call, want string, got any, err error) error {
		if err != nil {
			return artifactErrorf(ArtifactSelfTestFailed, err, "%s: expected %s, got an error: %v", call, want, err)
		}
		return artifactErrorf(ArtifactSelfTestFailed, nil, "%s: expected %s, got %v", call, want, got)
	}
	const planCall = "plan({base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: none}, 10000, 16)"
	const planWant = "max_attempts 4, offsets_ms [0 1000 3000 7000], limited_by window"
	s, err := onInstance(ctx, e, g, "plan", func(in *instance) (Schedule, error) {
		return in.callPlan(ctx, &Backoff{BaseMs: 1000, Factor: 2, CapMs: 4000, Jitter: JitterNone}, 10000, 16)
	})
	if err != nil || s.MaxAttempts != 4 || !slices.Equal(s.OffsetsMs, []uint64{0, 1000, 3000, 7000}) || s.LimitedBy != LimitedByWindow {
		got := fmt.Sprintf("max_attempts %d, offsets_ms %v, limited_by %s", s.MaxAttempts, s.OffsetsMs, s.LimitedBy)
		return fail(planCall, planWant, got, err)
	}
	class, err := onInstance(ctx, e, g, "classify-status", func(in *instance) (OutcomeClass, error) { return in.callClassifyStatus(ctx, 200) })
	if err != nil || class != OutcomeClassSuccess {
		return fail("classify-status(200)", "success", class, err)
	}
	type usable struct {
		ms uint64
		ok bool
	}
	got, err := onInstance(ctx, e, g, "parse-retry-after", func(in *instance) (r usable, err error) {
		r.ms, r.ok, err = in.callParseRetryAfter(ctx, "120", 0)
		return r, err
	})
	ms, ok := got.ms, got.ok
	if err != nil || !ok || ms != 120000 {
		return fail(`parse-retry-after("120", 0)`, "120000", fmt.Sprintf("%d (usable: %v)", ms, ok), err)
	}
	return nil
}
