package retrypolicy

import (
	"context"
	"fmt"
)

// CompiledDocument is every class of a policy document compiled once: the
// Compiled a dispatcher steps an event of that class with. Close it when
// the document is replaced (a reload), after the last step that uses it.
type CompiledDocument struct {
	// Version is the document's version label.
	Version string
	names   []string
	classes map[string]*Compiled
}

// CompileDocument compiles each class of a format-2 document.
func (e *Engine) CompileDocument(ctx context.Context, d PolicyDocument) (*CompiledDocument, error) {
	out := &CompiledDocument{Version: d.Version, classes: make(map[string]*Compiled, len(d.Classes))}
	for _, c := range d.Classes {
		if err := out.add(ctx, e, c.Name, c.Policy, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CompileHealthDocument compiles each class of a format-3 document
// (LoadHealthDocument) with its effective health section.
func (e *Engine) CompileHealthDocument(ctx context.Context, d HealthDocument) (*CompiledDocument, error) {
	out := &CompiledDocument{Version: d.Version, classes: make(map[string]*Compiled, len(d.Classes))}
	for _, c := range d.Classes {
		if err := out.add(ctx, e, c.Name, c.Policy, c.Health); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *CompiledDocument) add(ctx context.Context, e *Engine, name string, p Policy, h *Health) error {
	if _, dup := d.classes[name]; dup {
		_ = d.Close()
		return fmt.Errorf("retrypolicy: class %q appears twice", name)
	}
	c, err := e.Compile(ctx, p, h)
	if err != nil {
		_ = d.Close()
		return fmt.Errorf("retrypolicy: class %q: %w", name, err)
	}
	d.names = append(d.names, name)
	d.classes[name] = c
	return nil
}

// Class is the compiled policy of class name.
func (d *CompiledDocument) Class(name string) (*Compiled, bool) {
	c, ok := d.classes[name]
	return c, ok
}

// Classes are the class names, in document order.
func (d *CompiledDocument) Classes() []string { return append([]string(nil), d.names...) }

// Close closes every class's Compiled. Idempotent.
func (d *CompiledDocument) Close() error {
	for _, c := range d.classes {
		_ = c.Close()
	}
	return nil
}
