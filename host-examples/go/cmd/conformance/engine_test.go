package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The engine traces live beside the other vectors (tests/vectors/engine-*.json).
var engineDir = filepath.Join("..", "..", "..", "..", "tests", "vectors")

func TestTheRunnerPassesEveryEngineTrace(t *testing.T) {
	if _, err := os.Stat(engineDir); err != nil {
		t.Skipf("no engine traces: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(engineDir, "engine-*.json"))
	cases := 0
	for _, f := range files {
		var v struct{ Cases []json.RawMessage }
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &v) != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cases += len(v.Cases)
	}
	// Only the traces: a directory of copies.
	only := t.TempDir()
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if err := os.WriteFile(filepath.Join(only, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	want := fmt.Sprintf("go: %d passed, 0 failed", cases)
	if code := run([]string{only}, &out, &errOut); code != 0 || cases == 0 || !strings.Contains(out.String(), want) {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
}

// brokenCopy writes the engine traces to a temp directory with edit
// applied to engine-delivery.json's second case.
func brokenCopy(t *testing.T, edit func(c map[string]any)) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(engineDir, "engine-delivery.json"))
	if err != nil {
		t.Skipf("no engine traces: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc["cases"].([]any)[1].(map[string]any))
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "engine-delivery.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func step(c map[string]any, i int) map[string]any { return c["steps"].([]any)[i].(map[string]any) }

func TestABrokenEngineExpectationFailsTheRunNamingTheCaseAndStep(t *testing.T) {
	const name = "a 503 is retried after its backoff, then delivered (checked by hand)"
	for what, edit := range map[string]func(map[string]any){
		"step 1: actions":                          func(c map[string]any) { step(c, 1)["expect"] = []any{} },
		"step 1: error":                            func(c map[string]any) { step(c, 1)["error"] = "unknown_event" },
		"step 0: timeout_ms":                       func(c map[string]any) { step(c, 0)["timeout_ms"] = 1 },
		"step 2: broken step: json: unknown field": func(c map[string]any) { step(c, 2)["expected"] = []any{} },
		"broken trace case: json: unknown field":   func(c map[string]any) { c["note"] = "x" },
	} {
		var out, errOut bytes.Buffer
		code := run([]string{brokenCopy(t, edit)}, &out, &errOut)
		if code != 1 || !strings.Contains(out.String(), "FAIL engine-delivery.json: "+name+": "+what) ||
			!strings.Contains(out.String(), "1 failed") {
			t.Fatalf("%s: exit %d\n%s", what, code, out.String())
		}
	}
}
