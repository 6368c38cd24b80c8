package component

import (
	"bytes"
	"strings"
	"testing"
)

// module builds a core module with an export section naming exports.
func module(exports ...string) []byte {
	var sec []byte
	sec = append(sec, byte(len(exports)))
	for _, e := range exports {
		sec = append(sec, byte(len(e)))
		sec = append(sec, e...)
		sec = append(sec, 0x00, 0x00) // func 0
	}
	out := append([]byte(nil), coreModulePreamble...)
	out = append(out, sectionCoreExport, byte(len(sec)))
	return append(out, sec...)
}

func section(id byte, content []byte) []byte {
	// size as a 2-byte LEB128 to exercise multi-byte sizes
	n := len(content)
	return append([]byte{id, byte(n&0x7f) | 0x80, byte(n >> 7)}, content...)
}

func comp(sections ...[]byte) []byte {
	out := append([]byte(nil), componentPreamble...)
	for _, s := range sections {
		out = append(out, s...)
	}
	return out
}

func TestTheMainModuleIsTheOneExportingEveryName(t *testing.T) {
	shim := module("0", "1")
	main := module("cabi_realloc", "pkg#decide-with", "memory")
	c := comp(section(0, []byte("custom")), section(sectionCoreModule, shim), section(sectionCoreModule, main),
		section(sectionComponent, comp(section(sectionCoreModule, module("x")))))
	mods, err := CoreModules(c)
	if err != nil || len(mods) != 3 {
		t.Fatalf("want 3 core modules (one nested), got %d %v", len(mods), err)
	}
	got, err := MainModule(c, "pkg#decide-with", "cabi_realloc")
	if err != nil || !bytes.Equal(got, main) {
		t.Fatalf("main module: %v", err)
	}
}

func TestAmbiguousOrMissingMainModulesAreErrors(t *testing.T) {
	m := module("cabi_realloc", "f")
	if _, err := MainModule(comp(section(1, m), section(1, m)), "f"); err == nil || !strings.Contains(err.Error(), "exactly one") {
		t.Fatalf("two candidates: %v", err)
	}
	if _, err := MainModule(comp(section(1, m)), "g"); err == nil {
		t.Fatal("no candidate must be an error")
	}
}

func TestMalformedBinariesAreErrorsNotPanics(t *testing.T) {
	good := comp(section(1, module("f")))
	for name, b := range map[string][]byte{
		"empty":           nil,
		"a core module":   module("f"),
		"truncated":       good[:len(good)-3],
		"oversized LEB":   append(append([]byte(nil), componentPreamble...), 1, 0xff, 0xff, 0xff, 0xff, 0x7f),
		"bad core module": comp(section(1, []byte("not wasm"))),
	} {
		if _, err := CoreModules(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
