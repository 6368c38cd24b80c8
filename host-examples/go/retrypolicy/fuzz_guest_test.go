package retrypolicy

import (
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// fakeGuest is a guest without a policy, for fuzzing the generated
// canonical-ABI glue against memory the fuzzer fills: a real wazero memory
// of fakePages pages, a bump allocator as cabi_realloc, and every export
// of the world as a host function (re-exported by a tiny module) that
// answers with the return pointer (or flat value) in ret.
// Fuzzer bytes go at [0, fakeHeap); the allocator hands out [fakeHeap, end).
type fakeGuest struct {
	rt    wazero.Runtime
	mod   api.Module // the tiny module: memory, cabi_realloc, the exports
	in    *instance  // an instance whose exports are the fakes
	next  uint32     // the bump pointer
	dirty uint32     // bytes [0, dirty) may be non-zero
	ret   uint64     // what every fake export returns in stack[0]
	got   []uint64   // the flat params of the last fake export call
}

const (
	fakePages = 16 // 1 MiB: room for the fuzzer's longest values
	fakeHeap  = 0x8000
)

// guestModule assembles a module that exports a memory of fakePages
// pages and re-exports host functions (each import "host" name as name):
// wazero lets Go call a host function only through a wasm module.
func guestModule(names []string, defs map[string]api.FunctionDefinition) []byte {
	leb := func(b []byte, v uint32) []byte {
		for ; v >= 0x80; v >>= 7 {
			b = append(b, byte(v)|0x80)
		}
		return append(b, byte(v))
	}
	name := func(b []byte, s string) []byte { return append(leb(b, uint32(len(s))), s...) }
	section := func(out []byte, id byte, body []byte) []byte {
		return append(leb(append(out, id), uint32(len(body))), body...)
	}
	var types, imports, exports []byte
	types, imports = leb(types, uint32(len(names))), leb(imports, uint32(len(names)))
	exports = name(leb(exports, uint32(len(names)+1)), "memory")
	exports = append(exports, 0x02, 0x00)
	for i, n := range names {
		d := defs[n]
		types = leb(append(types, 0x60), uint32(len(d.ParamTypes())))
		types = append(types, d.ParamTypes()...)
		types = leb(types, uint32(len(d.ResultTypes())))
		types = append(types, d.ResultTypes()...)
		imports = leb(append(name(name(imports, "host"), n), 0x00), uint32(i))
		exports = leb(append(name(exports, n), 0x00), uint32(i))
	}
	out := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	out = section(out, 1, types)
	out = section(out, 2, imports)
	out = section(out, 5, []byte{0x01, 0x01, fakePages, fakePages})
	return section(out, 7, exports)
}

func newFakeGuest(tb testing.TB) *fakeGuest {
	ctx := context.Background()
	g := &fakeGuest{rt: wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())}
	tb.Cleanup(func() { _ = g.rt.Close(ctx) })
	compiled, err := g.rt.CompileModule(ctx, embeddedCore(tb))
	if err != nil {
		tb.Fatal(err)
	}
	// the fakes have the core module's signatures, so the glue calls them as it calls the guest
	defs := compiled.ExportedFunctions()
	names := append([]string{reallocExport}, exportNames[:]...)
	b := g.rt.NewHostModuleBuilder("host")
	for _, name := range names {
		fn := g.answer
		if name == reallocExport {
			fn = g.realloc
		}
		d := defs[name]
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(fn), d.ParamTypes(), d.ResultTypes()).Export(name)
	}
	if _, err := b.Instantiate(ctx); err != nil {
		tb.Fatal(err)
	}
	if g.mod, err = g.rt.InstantiateWithConfig(ctx, guestModule(names, defs), wazero.NewModuleConfig().WithName("fake")); err != nil {
		tb.Fatal(err)
	}
	g.in = &instance{abi: abi{mem: g.mod.Memory(), mod: g.mod, realloc: g.mod.ExportedFunction(reallocExport)}}
	for i, name := range exportNames {
		g.in.fns[i] = g.mod.ExportedFunction(name)
	}
	g.load(nil)
	return g
}

// realloc is a bump allocator over [fakeHeap, end); it answers a pointer
// past the end when full (the glue must refuse it).
func (g *fakeGuest) realloc(_ context.Context, _ api.Module, s []uint64) {
	align, size := uint32(s[2]), uint32(s[3])
	p := (g.next + align - 1) &^ (align - 1)
	if uint64(p)+uint64(size) > uint64(g.mod.Memory().Size()) {
		s[0] = uint64(g.mod.Memory().Size())
		return
	}
	g.next = p + size
	s[0] = uint64(p)
}

func (g *fakeGuest) answer(_ context.Context, _ api.Module, s []uint64) {
	g.got = append(g.got[:0], s...)
	s[0] = g.ret
}

// load zeroes what the last input wrote, puts data (at most fakeHeap
// bytes) at address 0 and empties the heap.
func (g *fakeGuest) load(data []byte) {
	if len(data) > fakeHeap {
		data = data[:fakeHeap]
	}
	m := g.mod.Memory()
	dirty, _ := m.Read(0, max(g.dirty, g.next))
	clear(dirty)
	m.Write(0, data)
	g.next, g.dirty = fakeHeap, uint32(len(data))
	g.in.lifted = 0
}

// bytes is guest memory at [ptr, ptr+n) (the test's own view).
func (g *fakeGuest) bytes(ptr, n uint32) []byte {
	b, ok := g.mod.Memory().Read(ptr, n)
	if !ok {
		panic("fakeGuest.bytes outside memory")
	}
	return b
}

// isABIError reports a typed refusal of the glue (a malformed guest value).
func isABIError(err error) bool {
	var ae *abiError
	return errors.As(err, &ae)
}

// callImport runs a generated import with the flat params s as the guest
// would; the glue panics with an *abiError on a malformed value, which
// wazero turns into a trap; any other panic is a bug and propagates.
func (g *fakeGuest) callImport(fn api.GoModuleFunc, s []uint64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && isABIError(e) {
				err = e
				return
			}
			panic(r)
		}
	}()
	fn(context.Background(), g.mod, s)
	return nil
}
