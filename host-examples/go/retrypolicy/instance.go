package retrypolicy

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// instance is one instantiation of the core module, used by one goroutine
// at a time (the Engine's pool hands it out) and discarded after a trap or
// an ABI error, since its memory may then be inconsistent.
type instance struct {
	abi
	fns     [fnCount]api.Function
	posts   [fnCount]api.Function
	stack   [17]uint64 // 16 flat params + 1
	scratch []byte
	broken  bool
	home    *pool       // the pool it returns to
	gen     *generation // the artifact it runs
}

func newInstance(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule) (*instance, error) {
	// An empty name lets any number of instances coexist in one runtime.
	mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return nil, fmt.Errorf("retrypolicy: instantiate the policy module: %w", err)
	}
	in := &instance{abi: abi{mem: mod.Memory(), mod: mod, realloc: mod.ExportedFunction(reallocExport)}}
	missing := func(name string) (*instance, error) {
		_ = mod.Close(ctx)
		return nil, fmt.Errorf("retrypolicy: the policy module does not export %q", name)
	}
	if in.mem == nil {
		return missing("memory")
	}
	if in.realloc == nil {
		return missing(reallocExport)
	}
	for i, name := range exportNames {
		if in.fns[i] = mod.ExportedFunction(name); in.fns[i] == nil {
			return missing(name)
		}
		if in.posts[i] = mod.ExportedFunction("cabi_post_" + name); in.posts[i] == nil && exportNeedsPost[i] {
			return missing("cabi_post_" + name)
		}
	}
	return in, nil
}

// scratchArea is a zeroed host buffer of n bytes for a params tuple.
func (in *instance) scratchArea(n int) []byte {
	if cap(in.scratch) < n {
		in.scratch = make([]byte, n)
	}
	b := in.scratch[:n]
	clear(b)
	return b
}

// invoke calls export fn with the flat values s; its flat result is s[0].
// The lift budget (abi.charge) starts afresh: the answer is lifted next.
func (in *instance) invoke(ctx context.Context, fn int, s []uint64) error {
	in.lifted = 0
	return in.fns[fn].CallWithStack(ctx, s)
}

// post frees what export fn returned at ptr (cabi_post_*), once lifted.
func (in *instance) post(ctx context.Context, fn int, ptr uint32) error {
	p := in.posts[fn]
	if p == nil {
		return nil
	}
	s := in.rstack[:1]
	s[0] = uint64(ptr)
	return p.CallWithStack(ctx, s)
}

// close closes the module.
func (in *instance) close(ctx context.Context) {
	_ = in.mod.Close(ctx)
}
