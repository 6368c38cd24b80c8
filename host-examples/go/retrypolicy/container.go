package retrypolicy

import (
	"bytes"
	"unicode/utf8"
)

// The one component-file reader of this host (docs/artifact.md, loading
// step 3): wazero runs core modules, not components, so the host walks the
// component's top-level sections itself, reads the two custom sections it
// knows by name, and finds the main core module (the one exporting
// cabi_realloc). Nothing else of the component is interpreted.

// The custom sections an artifact may carry (at most one of each).
const (
	buildSection    = "webhook-retry-policy:build"
	documentSection = "webhook-retry-policy:document"
)

var (
	componentHeader = []byte{0x00, 'a', 's', 'm', 0x0d, 0x00, 0x01, 0x00}
	moduleHeader    = []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
)

// Section ids: 0 custom (component and core), 1 core module (component),
// 7 export (core).
const (
	sectionCustom     = 0
	sectionCoreModule = 1
	sectionCoreExport = 7
)

// container is what an artifact's reader found.
type container struct {
	core    []byte            // the main core module's bytes
	exports []string          // the main core module's export names
	custom  map[string][]byte // the known custom sections, by name
}

// readContainer walks a component file. Any failure is an
// artifact_invalid *ArtifactError naming the byte offset.
func readContainer(b []byte) (container, error) {
	c := container{custom: map[string][]byte{}}
	if len(b) < len(componentHeader) || !bytes.Equal(b[:4], componentHeader[:4]) {
		return c, invalidf("not a WebAssembly file: the first 4 bytes are %x, want 0061736d", b[:min(4, len(b))])
	}
	if !bytes.Equal(b[:8], componentHeader) {
		return c, invalidf("not a component: version and layer are %x at byte 4, want 0d000100 (a core module is 01000000)", b[4:8])
	}
	mains := 0
	err := walkSections(b, 0, func(id byte, body []byte, at, bodyAt int) error {
		switch id {
		case sectionCustom:
			name, payload, err := readName(body, bodyAt)
			if err != nil {
				return err
			}
			if name != buildSection && name != documentSection {
				return nil
			}
			if _, dup := c.custom[name]; dup {
				return invalidf("a second custom section %q at byte %d (at most one is allowed)", name, at)
			}
			c.custom[name] = payload
		case sectionCoreModule:
			exports, err := moduleExports(body, bodyAt)
			if err != nil {
				return err
			}
			for _, name := range exports {
				if name == reallocExport {
					mains++
					c.core, c.exports = body, exports
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	switch mains {
	case 0:
		return c, invalidf("no core module exports %s: no main module", reallocExport)
	case 1:
		return c, nil
	default:
		return c, invalidf("%d core modules export %s: want exactly one main module", mains, reallocExport)
	}
}

// walkSections calls fn with each section's id, body and the file offsets
// of the section and of its body, from b[8] to the end of b; base is b's
// offset in the file (a core module's sections are inside the component).
func walkSections(b []byte, base int, fn func(id byte, body []byte, at, bodyAt int) error) error {
	for i := 8; i < len(b); {
		size, n, err := uleb32(b[i+1:], base+i+1)
		if err != nil {
			return err
		}
		body := i + 1 + n
		if uint64(size) > uint64(len(b)-body) {
			return invalidf("section %d at byte %d claims %d bytes; %d remain (truncated or oversized)", b[i], base+i, size, len(b)-body)
		}
		if err := fn(b[i], b[body:body+int(size)], base+i, base+body); err != nil {
			return err
		}
		i = body + int(size)
	}
	return nil
}

// moduleExports lists the export names of the core module m, which starts
// at byte at of the file.
func moduleExports(m []byte, at int) ([]string, error) {
	if len(m) < len(moduleHeader) || !bytes.Equal(m[:8], moduleHeader) {
		return nil, invalidf("the core module section at byte %d does not start with a core module header", at)
	}
	var names []string
	err := walkSections(m, at, func(id byte, body []byte, _, bodyAt int) error {
		if id != sectionCoreExport {
			return nil
		}
		count, n, err := uleb32(body, bodyAt)
		if err != nil {
			return err
		}
		rest := body[n:]
		for k := uint32(0); k < count; k++ {
			var name string
			if name, rest, err = readName(rest, bodyAt); err != nil {
				return err
			}
			if len(rest) < 1 {
				return invalidf("export %d of the core module at byte %d is truncated", k, at)
			}
			_, n, err := uleb32(rest[1:], bodyAt) // the kind byte, then the index
			if err != nil {
				return err
			}
			rest = rest[1+n:]
			names = append(names, name)
		}
		return nil
	})
	return names, err
}

// readName reads a WebAssembly name (LEB128 length, UTF-8 bytes).
func readName(b []byte, at int) (string, []byte, error) {
	n, k, err := uleb32(b, at)
	if err != nil {
		return "", nil, err
	}
	if uint64(n) > uint64(len(b)-k) {
		return "", nil, invalidf("a name near byte %d claims %d bytes; %d remain", at, n, len(b)-k)
	}
	name := b[k : k+int(n)]
	if !utf8.Valid(name) {
		return "", nil, invalidf("a name near byte %d is not UTF-8", at)
	}
	return string(name), b[k+int(n):], nil
}

// uleb32 reads an unsigned LEB128 value of at most 32 bits (5 bytes).
func uleb32(b []byte, at int) (uint32, int, error) {
	var v uint64
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, 0, invalidf("a LEB128 number at byte %d is truncated", at)
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			if v > 0xffffffff {
				return 0, 0, invalidf("a LEB128 number at byte %d exceeds 32 bits", at)
			}
			return uint32(v), i + 1, nil
		}
	}
	return 0, 0, invalidf("a LEB128 number at byte %d is longer than 5 bytes", at)
}

// AppendCustomSection returns component with a custom section (name,
// payload) appended: the reader's inverse, for bundling and tests. A
// custom section carries no semantics, so the result runs alike; its
// sha256 differs.
func AppendCustomSection(component []byte, name string, payload []byte) []byte {
	body := append(appendULEB(nil, uint32(len(name))), name...)
	body = append(body, payload...)
	out := append(append([]byte(nil), component...), sectionCustom)
	return append(appendULEB(out, uint32(len(body))), body...)
}

func appendULEB(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
