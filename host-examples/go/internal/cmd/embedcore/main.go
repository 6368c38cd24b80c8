// Command embedcore writes the retrypolicy package's embedded core module
// (and its manifest) from the component built by scripts/build-component.
//
//	go run ./internal/cmd/embedcore -component ../../dist/retry_policy.wasm -out retrypolicy
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/embedcore"
)

func main() {
	componentPath := flag.String("component", "", "path of dist/retry_policy.wasm")
	outDir := flag.String("out", ".", "directory of the retrypolicy package")
	flag.Parse()
	if err := run(*componentPath, *outDir); err != nil {
		fmt.Fprintln(os.Stderr, "embedcore:", err)
		os.Exit(1)
	}
}

func run(componentPath, outDir string) error {
	if componentPath == "" {
		return fmt.Errorf("-component is required")
	}
	comp, err := os.ReadFile(componentPath)
	if err != nil {
		return fmt.Errorf("%w (run scripts/build-component first)", err)
	}
	module, manifest, err := embedcore.Derive(comp)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, embedcore.ModuleFile), module, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, embedcore.ManifestFile), []byte(manifest), 0o644); err != nil {
		return err
	}
	fmt.Printf("embedcore: %s (%d bytes) from %s (%d bytes)\n", embedcore.ModuleFile, len(module), componentPath, len(comp))
	return nil
}
