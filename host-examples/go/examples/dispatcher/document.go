package main

import (
	"context"
	"fmt"
	"os"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Which document the demo admits under (docs/artifact.md step 6): the
// -policy file when given; else the artifact's embedded document when it
// carries one (format 2 or 3: its health sections count as its own, and a
// swapped-in artifact's document becomes current); else policy.json.

// chooseDocument fills cfg's document: HealthDocument (the -policy file
// or policy.json), or Documents following the artifact. version names the
// current document (for webhook_policy_info).
func chooseDocument(ctx context.Context, engine *rp.Engine, policyPath string, cfg *Config) (version func() string, err error) {
	if policyPath == "" {
		if _, _, ok := engine.ArtifactHealthDocument(); ok {
			docs, err := rp.NewDocuments(ctx, engine, nil)
			if err != nil {
				return nil, err
			}
			cfg.Documents = docs
			return func() string { return docs.Current().Version }, nil
		}
	}
	doc, err := fixedDocument(ctx, engine, policyPath)
	if err != nil {
		return nil, err
	}
	cfg.HealthDocument = &doc
	return func() string { return doc.Version }, nil
}

// fixedDocument is the document of policyPath (format 2 or 3), else the
// artifact's embedded one, else the demo's policy.json, as it is now.
func fixedDocument(ctx context.Context, engine *rp.Engine, policyPath string) (rp.HealthDocument, error) {
	text := policyJSON
	if policyPath != "" {
		var err error
		if text, err = os.ReadFile(policyPath); err != nil {
			return rp.HealthDocument{}, fmt.Errorf("--policy: %w", err)
		}
	} else if doc, _, ok := engine.ArtifactHealthDocument(); ok {
		return doc, nil
	}
	doc, err := engine.LoadHealthDocument(ctx, text) // format 3 (load-health-document reads format 2 too)
	if err != nil && policyPath != "" {
		return rp.HealthDocument{}, fmt.Errorf("--policy %s: %w", policyPath, err)
	}
	return doc, err
}
