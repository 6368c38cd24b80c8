package retrypolicy_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/vectors"
	"example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// -vectors (or RETRY_POLICY_VECTORS) picks the vector directory; the
// default is the repository's tests/vectors.
var vectorsDir = flag.String("vectors", "", "directory of SPEC vector files (default $RETRY_POLICY_VECTORS, else ../../../tests/vectors)")

func vectorDir(t *testing.T) string {
	if *vectorsDir != "" {
		return *vectorsDir
	}
	if d := os.Getenv("RETRY_POLICY_VECTORS"); d != "" {
		return d
	}
	d := filepath.Join("..", "..", "..", "tests", "vectors")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("no vectors at %s (outside the repository); set -vectors or RETRY_POLICY_VECTORS", d)
	}
	return d
}

func TestEveryVectorCaseMatchesItsExpectation(t *testing.T) {
	files, err := vectors.LoadDir(vectorDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no vector files")
	}
	// Both of wazero's engines: the compiler (amd64, arm64) and the
	// interpreter (every other platform).
	for name, opts := range map[string][]retrypolicy.Option{"compiler": nil, "interpreter": {retrypolicy.WithInterpreter()}} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			engine, err := retrypolicy.New(ctx, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer engine.Close(ctx)
			n := 0
			for _, f := range files {
				t.Run(filepath.Base(f.Path), func(t *testing.T) {
					if f.Err != nil {
						t.Fatal(f.Err)
					}
					for _, c := range f.Cases {
						n++
						if why := vectors.Check(ctx, engine, c); why != "" {
							t.Errorf("%s: %s", c.Name, why)
						}
					}
				})
			}
			t.Logf("%d cases", n)
		})
	}
}
