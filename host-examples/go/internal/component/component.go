// Package component reads the core modules out of a WebAssembly component
// binary, so the Go host can embed exactly the core module the component
// was built from (wazero runs core modules, not components).
//
// Format (component model binary, layer 1): the preamble `\0asm`, version
// 0x0d 0x00 and layer 0x01 0x00, then sections `id:u8 size:u32(LEB128)
// content`. Section id 1 holds one whole core module. Nested components
// (id 4) are searched too, depth first, in file order.
package component

import (
	"bytes"
	"errors"
	"fmt"
)

const (
	sectionCoreModule = 1
	sectionComponent  = 4
	sectionCoreExport = 7 // export section id inside a core module
)

var (
	componentPreamble  = []byte{0x00, 'a', 's', 'm', 0x0d, 0x00, 0x01, 0x00}
	coreModulePreamble = []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
)

// CoreModules returns every core module embedded in a component, in file
// order (nested components depth first). The slices alias the input.
func CoreModules(component []byte) ([][]byte, error) {
	if !bytes.HasPrefix(component, componentPreamble) {
		if bytes.HasPrefix(component, coreModulePreamble) {
			return nil, errors.New("component: this is a core module, not a component")
		}
		return nil, errors.New("component: missing the component preamble (\\0asm, version 0x0d, layer 1)")
	}
	var out [][]byte
	err := walkSections(component[len(componentPreamble):], func(id byte, content []byte) error {
		switch id {
		case sectionCoreModule:
			if !bytes.HasPrefix(content, coreModulePreamble) {
				return errors.New("component: a core module section does not start with a core module preamble")
			}
			out = append(out, content)
		case sectionComponent:
			nested, err := CoreModules(content)
			if err != nil {
				return fmt.Errorf("nested component: %w", err)
			}
			out = append(out, nested...)
		}
		return nil
	})
	return out, err
}

// MainModule returns the one core module whose exports include every name
// in mustExport (for the policy: `webhook:retry-policy/policy@0.1.0#decide-with`
// and `cabi_realloc`); small shim modules export neither.
func MainModule(component []byte, mustExport ...string) ([]byte, error) {
	modules, err := CoreModules(component)
	if err != nil {
		return nil, err
	}
	var found [][]byte
	for _, m := range modules {
		names, err := CoreExports(m)
		if err != nil {
			return nil, err
		}
		if hasAll(names, mustExport) {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("component: none of its %d core modules exports all of %q", len(modules), mustExport)
	default:
		return nil, fmt.Errorf("component: %d core modules export all of %q; expected exactly one", len(found), mustExport)
	}
}

// CoreExports lists the export names of a core module.
func CoreExports(module []byte) ([]string, error) {
	if !bytes.HasPrefix(module, coreModulePreamble) {
		return nil, errors.New("component: not a core module")
	}
	var names []string
	err := walkSections(module[len(coreModulePreamble):], func(id byte, content []byte) error {
		if id != sectionCoreExport {
			return nil
		}
		r := reader{buf: content}
		count, err := r.u32()
		if err != nil {
			return err
		}
		for i := uint32(0); i < count; i++ {
			name, err := r.name()
			if err != nil {
				return err
			}
			if _, err := r.byte(); err != nil { // kind
				return err
			}
			if _, err := r.u32(); err != nil { // index
				return err
			}
			names = append(names, name)
		}
		return nil
	})
	return names, err
}

func hasAll(names, want []string) bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

// walkSections calls fn for every `id size content` section of body.
func walkSections(body []byte, fn func(id byte, content []byte) error) error {
	r := reader{buf: body}
	for r.pos < len(r.buf) {
		id, err := r.byte()
		if err != nil {
			return err
		}
		size, err := r.u32()
		if err != nil {
			return err
		}
		content, err := r.bytes(int(size))
		if err != nil {
			return fmt.Errorf("component: section %d: %w", id, err)
		}
		if err := fn(id, content); err != nil {
			return err
		}
	}
	return nil
}
