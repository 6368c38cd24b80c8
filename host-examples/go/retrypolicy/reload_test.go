package retrypolicy_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

const docV1 = `{"version":"v1","classes":{"c":{"window_ms":60000,"backoff":{"base_ms":1000,"factor":2.0,"cap_ms":10000,"jitter":"full"}}}}`
const docV2 = `{"version":"v2","classes":{"c":{"window_ms":600000,"backoff":{"base_ms":1000,"factor":2.0,"cap_ms":60000,"jitter":"full"}}}}`

func TestAReloadSwapsTheDocumentAndAdmittedEventsKeepTheirSchedule(t *testing.T) {
	ctx := context.Background()
	e := newEngine(t)
	docs, err := rp.NewDocuments(ctx, e, []byte(docV1))
	if err != nil {
		t.Fatal(err)
	}
	before, err := e.Admit(ctx, docs.Current(), "c", 1_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := docs.Reload(ctx, []byte(docV2)); err != nil {
		t.Fatal(err)
	}
	after, _ := e.Admit(ctx, docs.Current(), "c", 1_000)
	if docs.Current().Version != "v2" || after.PolicyHash == before.PolicyHash || after.DeadlineMs == before.DeadlineMs {
		t.Fatalf("after the reload: %+v, admitted %+v (before %+v)", docs.Current().Version, after, before)
	}
	if before.PolicyVersion != "v1" || before.DeadlineMs != 61_000 {
		t.Fatalf("the earlier admission changed: %+v", before)
	}
}

func TestABadDocumentKeepsTheOldOneAndSaysWhy(t *testing.T) {
	ctx := context.Background()
	docs, err := rp.NewDocuments(ctx, newEngine(t), []byte(docV1))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{`, `{"version":"x","classes":{}}`, strings.Replace(docV2, `"factor":2.0`, `"factor":0.5`, 1), "\xff"} {
		err := docs.Reload(ctx, []byte(bad))
		if err == nil || !strings.Contains(err.Error(), "the current one stays") {
			t.Errorf("%q: %v, want a rejection", bad, err)
		}
		if docs.Current().Version != "v1" {
			t.Fatalf("%q replaced the document", bad)
		}
	}
}

func TestTheFileWatcherReloadsAChangedFileAndReportsABadOne(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := filepath.Join(t.TempDir(), "policy.json")
	_ = os.WriteFile(path, []byte(docV1), 0o644)
	docs, err := rp.NewDocuments(ctx, newEngine(t), []byte(docV1))
	if err != nil {
		t.Fatal(err)
	}
	reports := make(chan error, 8)
	go docs.WatchFile(ctx, path, 10*time.Millisecond, func(err error) { reports <- err })
	next := func() error {
		select {
		case err := <-reports:
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("no report from the watcher")
			return nil
		}
	}
	_ = os.WriteFile(path, []byte(docV2), 0o644)
	if err := next(); err != nil || docs.Current().Version != "v2" {
		t.Fatalf("after writing v2: %v, version %s", err, docs.Current().Version)
	}
	_ = os.WriteFile(path, []byte(`{"version":"broken"`), 0o644)
	if err := next(); err == nil || docs.Current().Version != "v2" {
		t.Fatalf("after a broken write: %v, version %s", err, docs.Current().Version)
	}
}

func TestDocumentsFollowTheArtifactsEmbeddedDocumentUntilTheCallerPinsOne(t *testing.T) {
	ctx := context.Background()
	withDoc := func(version string) []byte {
		text := strings.Replace(docV1, `"version":"v1"`, `"version":"`+version+`"`, 1)
		return rp.AppendCustomSection(rp.EmbeddedArtifact(), "webhook-retry-policy:document", []byte(text))
	}
	e, err := rp.New(ctx, rp.WithArtifact(withDoc("a1")))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	docs, err := rp.NewDocuments(ctx, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := docs.Current().Version; v != "a1" {
		t.Fatalf("current %q, want the artifact's a1", v)
	}
	if _, err := e.SwapArtifact(ctx, withDoc("a2"), ""); err != nil {
		t.Fatal(err)
	}
	if v := docs.Current().Version; v != "a2" {
		t.Fatalf("after the swap: current %q, want a2", v)
	}
	if err := docs.Reload(ctx, []byte(docV2)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.SwapArtifact(ctx, withDoc("a3"), ""); err != nil {
		t.Fatal(err)
	}
	if v := docs.Current().Version; v != "v2" {
		t.Fatalf("a reloaded document is pinned: current %q, want v2", v)
	}
	plain, err := rp.New(ctx, rp.WithArtifact(rp.EmbeddedArtifact()))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)
	if _, err := rp.NewDocuments(ctx, plain, nil); err == nil {
		t.Fatal("no document and none embedded: want an error")
	}
}
