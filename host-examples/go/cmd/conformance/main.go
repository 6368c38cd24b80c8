// Command conformance runs a directory of SPEC vector files through the Go
// host (the policy artifact on wazero: RETRY_POLICY_ARTIFACT when set, else
// the copy embedded in the package) and prints one line per failing case,
// then "go: N passed, M failed". The ops whose function ABI 1.0 still
// exports run through this host's glue; every other op of formats 1-3
// runs inside the artifact through the test-only vector-case, with the
// case's JSON text exactly as in the file (internal/vectors). The engine
// trace files (format "webhook-retry-policy/engine-trace 1",
// tests/vectors/engine-*.json, docs/engine.md section 14) run through
// retrypolicy.DeliveryEngine, one input per batch. It exits 1 on any failure (including a broken vector, an unknown op or a
// refused artifact) and 2 on a usage error.
//
//	go run ./cmd/conformance ../../tests/vectors
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/vectors"
	"example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command: the exit code for args.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: conformance DIR   (a directory of vector *.json files)")
		return 2
	}
	ctx := context.Background()
	engine, err := retrypolicy.New(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return 1
	}
	defer engine.Close(ctx)
	fmt.Fprintf(stderr, "conformance (go): artifact sha256 %s from %s%s\n", engine.Info().SHA256, engine.Info().Source,
		embeddedBanner(engine))
	_, failed, err := vectors.Report(ctx, engine, args[0], stdout)
	if err != nil {
		fmt.Fprintln(stderr, "conformance:", err)
		return 2
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// embeddedBanner names the artifact's embedded document (format 2 or 3) as
// the loader read it: its version and the classes with a health section.
func embeddedBanner(engine *retrypolicy.Engine) string {
	doc, _, ok := engine.ArtifactHealthDocument()
	if !ok {
		return ""
	}
	var names []string
	for _, c := range doc.Classes {
		if c.Health != nil {
			names = append(names, c.Name)
		}
	}
	return fmt.Sprintf(" document_version=%s health_classes=%s", doc.Version, strings.Join(names, ","))
}
