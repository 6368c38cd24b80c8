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
// yet current. Every refusal is an *ArtifactError.
func (e *Engine) load(ctx context.Context, raw []byte, source, pin string) (*generation, error) {
	pin, err := checkPin(pin)
	if err != nil {
		return nil, err
	}
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
	var v uint32
	if err := e.withGen(ctx, g, "abi-version", func(in *instance) (err error) {
		v, err = in.callABIVersion(ctx)
		return err
	}); err != nil {
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
	var hdoc HealthDocument
	if err := e.withGen(ctx, g, "load-health-document", func(in *instance) (err error) {
		hdoc, err = in.callLoadHealthDocument(ctx, string(text))
		return err
	}); err != nil {
		return artifactErrorf(ArtifactDocumentInvalid, err, "the embedded document (custom section %s) does not load: %v", documentSection, err)
	}
	doc := formatTwoOf(hdoc)
	// the rules of a document reload (Documents.Reload): every class admits
	if len(doc.Classes) == 0 {
		return artifactErrorf(ArtifactDocumentInvalid, nil, "the embedded document (custom section %s) has no class", documentSection)
	}
	now := e.clock.NowMs()
	for _, c := range doc.Classes {
		if err := e.withGen(ctx, g, "admit", func(in *instance) error {
			_, err := in.callAdmit(ctx, &doc, c.Name, now)
			return err
		}); err != nil {
			return artifactErrorf(ArtifactDocumentInvalid, err, "the embedded document (custom section %s): class %q does not admit: %v", documentSection, c.Name, err)
		}
	}
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

// withGen runs fn on an instance of g (acquire, fn, done).
func (e *Engine) withGen(ctx context.Context, g *generation, op string, fn func(*instance) error) (err error) {
	in, err := e.acquireOn(ctx, g, false)
	if err != nil {
		return err
	}
	defer e.done(ctx, op, in, &err)
	return fn(in)
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
	var s Schedule
	err := e.withGen(ctx, g, "plan", func(in *instance) (err error) {
		s, err = in.callPlan(ctx, &Backoff{BaseMs: 1000, Factor: 2, CapMs: 4000, Jitter: JitterNone}, 10000, 16)
		return err
	})
	if err != nil || s.MaxAttempts != 4 || !slices.Equal(s.OffsetsMs, []uint64{0, 1000, 3000, 7000}) || s.LimitedBy != LimitedByWindow {
		got := fmt.Sprintf("max_attempts %d, offsets_ms %v, limited_by %s", s.MaxAttempts, s.OffsetsMs, s.LimitedBy)
		return fail(planCall, planWant, got, err)
	}
	var class OutcomeClass
	err = e.withGen(ctx, g, "classify-status", func(in *instance) (err error) {
		class, err = in.callClassifyStatus(ctx, 200)
		return err
	})
	if err != nil || class != OutcomeClassSuccess {
		return fail("classify-status(200)", "success", class, err)
	}
	var ms uint64
	var ok bool
	err = e.withGen(ctx, g, "parse-retry-after", func(in *instance) (err error) {
		ms, ok, err = in.callParseRetryAfter(ctx, "120", 0)
		return err
	})
	if err != nil || !ok || ms != 120000 {
		return fail(`parse-retry-after("120", 0)`, "120000", fmt.Sprintf("%d (usable: %v)", ms, ok), err)
	}
	return nil
}
