// Command conformance runs a directory of SPEC vector files through the Go
// host (the embedded policy module on wazero) and prints one line per
// failing case, then "go: N passed, M failed". It exits 1 on any failure
// (including a broken vector or an unknown op) and 2 on a usage error.
//
//	go run ./cmd/conformance ../../tests/vectors
package main

import (
	"context"
	"fmt"
	"os"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/vectors"
	"example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance DIR   (a directory of vector *.json files)")
		os.Exit(2)
	}
	ctx := context.Background()
	engine, err := retrypolicy.New(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
	defer engine.Close(ctx)
	_, failed, err := vectors.Report(ctx, engine, os.Args[1], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	if failed > 0 {
		engine.Close(ctx)
		os.Exit(1)
	}
}
