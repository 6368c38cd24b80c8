package retrypolicy

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestTheCompilationCacheIsWrittenWhereTheVariableSaysAndOffMeansNone(t *testing.T) {
	if c, dir := cacheFrom("off"); c != nil || dir != "" {
		t.Fatalf("off: got a cache in %q", dir)
	}
	if c, _ := cacheFrom("0"); c != nil {
		t.Fatal("0: got a cache")
	}
	want := filepath.Join(t.TempDir(), "cache")
	c, dir := cacheFrom(want)
	if c == nil || dir != want {
		t.Fatalf("got %v in %q, want a cache in %q", c, dir, want)
	}
	ctx := context.Background()
	e, err := New(ctx, WithCompilationCache(c))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	files := 0
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, _ error) error {
		if info != nil && !info.IsDir() {
			files++
		}
		return nil
	})
	if files == 0 {
		t.Fatalf("no compiled code in %s after New", dir)
	}
}

func TestAnUnusableCacheDirectoryMeansNoCacheNotAFailedLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if c, _ := cacheFrom(filepath.Join(file, "sub")); c != nil {
		t.Fatal("a cache under a regular file")
	}
}
