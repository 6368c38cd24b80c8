package httpoutcome

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// moduleRoot is host-examples/go, seen from this package's directory.
const moduleRoot = "../.."

type kindsTable struct {
	Kinds []struct {
		Kind  string `json:"kind"`
		Class string `json:"class"`
	} `json:"kinds"`
}

func readKindsTable(t *testing.T) kindsTable {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(moduleRoot, "..", "..", "fleet", "transport-kinds.json"))
	if err != nil {
		t.Fatalf("fleet/transport-kinds.json: %v", err)
	}
	var table kindsTable
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatalf("fleet/transport-kinds.json: %v", err)
	}
	if len(table.Kinds) == 0 {
		t.Fatal("fleet/transport-kinds.json lists no kind")
	}
	return table
}

func TestTheKindConstantsAreExactlyTheFleetTableInItsOrder(t *testing.T) {
	table := readKindsTable(t)
	var want, got []string
	for _, k := range table.Kinds {
		want = append(want, k.Kind)
	}
	for _, k := range TransportKinds() {
		got = append(got, string(k))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("kinds.go lists\n  %v\nfleet/transport-kinds.json lists\n  %v", got, want)
	}
}

func TestTheShippedPolicyClassifiesEveryKindAsTheFleetTableSays(t *testing.T) {
	ctx := context.Background()
	var opts []rp.Option
	if dist := filepath.Join(moduleRoot, "..", "..", "dist", "retry_policy.wasm"); fileExists(dist) {
		opts = append(opts, rp.WithArtifactPath(dist)) // the shipped artifact itself
	}
	e, err := rp.New(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	for _, k := range readKindsTable(t).Kinds {
		class, err := e.ClassifyError(ctx, string(TransportKind(k.Kind)))
		if err != nil {
			t.Errorf("classify_error(%s): %v", k.Kind, err)
			continue
		}
		if class.String() != k.Class {
			t.Errorf("classify_error(%s) = %s, the fleet table says %s", k.Kind, class, k.Class)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// A kind is produced through the constants only: no Go source of this
// module but kinds.go spells a kind as a string literal (tests, which
// name kinds to expect, and generated code are not producers).
func TestNoSourceOutsideKindsGoSpellsAKindAsAString(t *testing.T) {
	var names []string
	for _, k := range TransportKinds() {
		names = append(names, regexp.QuoteMeta(string(k)))
	}
	literal := regexp.MustCompile("[\"`](" + strings.Join(names, "|") + ")[\"`]")
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := filepath.Base(path)
		if d.IsDir() {
			if base == "testdata" || base == ".bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(base, ".go") || strings.HasSuffix(base, "_test.go") ||
			strings.HasPrefix(base, "zz_generated") || path == filepath.Join(moduleRoot, "internal", "httpoutcome", "kinds.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if m := literal.FindString(line); m != "" {
				t.Errorf("%s:%d spells the kind %s as a string: use the httpoutcome constant", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
