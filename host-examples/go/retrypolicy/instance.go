package retrypolicy

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// op is one exported function of the WIT interface `policy`.
type op int

const (
	opABIVersion op = iota
	opPlan
	opDelay
	opClassifyStatus
	opClassifyError
	opBudgetAllows
	opLoadDocument
	opAdmit
	opDecide
	opDecideWith
	opCount
)

// opNames are the WIT names; the core export is exportPrefix + name and
// its post-return is "cabi_post_" + that.
var opNames = [opCount]string{
	"abi-version", "plan", "delay", "classify-status", "classify-error",
	"budget-allows", "load-document", "admit", "decide", "decide-with",
}

// hasPost marks the functions whose results live in guest memory and so
// have a `cabi_post_*` export to free them.
var hasPost = [opCount]bool{
	opPlan: true, opDelay: true, opClassifyStatus: true, opBudgetAllows: true,
	opLoadDocument: true, opAdmit: true, opDecide: true, opDecideWith: true,
}

const (
	exportPrefix  = "webhook:retry-policy/policy@0.1.0#"
	reallocExport = "cabi_realloc"
	maxFlatParams = 16
)

func (o op) String() string { return opNames[o] }

// instance is one instantiation of the core module. It is used by one
// goroutine at a time (the engine's pool hands it out) and is discarded
// after any trap or ABI error, since its memory may then be inconsistent.
type instance struct {
	mod        api.Module
	mem        api.Memory
	realloc    api.Function
	fns        [opCount]api.Function
	posts      [opCount]api.Function
	allocStack [4]uint64
	argBuf     [maxFlatParams]uint64
	args       flatArgs
	scratch    [sizeDecideWithParams]byte
	broken     bool
}

func newInstance(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule) (*instance, error) {
	// An empty name lets any number of instances coexist in one runtime.
	mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return nil, fmt.Errorf("retrypolicy: instantiate the policy module: %w", err)
	}
	in := &instance{mod: mod, mem: mod.Memory(), realloc: mod.ExportedFunction(reallocExport)}
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
	for o := op(0); o < opCount; o++ {
		name := exportPrefix + opNames[o]
		if in.fns[o] = mod.ExportedFunction(name); in.fns[o] == nil {
			return missing(name)
		}
		if hasPost[o] {
			if in.posts[o] = mod.ExportedFunction("cabi_post_" + name); in.posts[o] == nil {
				return missing("cabi_post_" + name)
			}
		}
	}
	return in, nil
}

// begin resets the flat argument list and the scratch buffer for a call.
func (in *instance) begin() *flatArgs {
	in.args.s = in.argBuf[:0]
	return &in.args
}

// call invokes op with the flat arguments collected since begin and
// returns its single flat result (a value or a return-area pointer).
func (in *instance) call(ctx context.Context, o op) (uint64, error) {
	stack := in.args.s
	if len(stack) == 0 {
		stack = in.argBuf[:1] // room for the result
	}
	if err := in.fns[o].CallWithStack(ctx, stack); err != nil {
		return 0, err
	}
	return stack[0], nil
}

// callParamsArea passes the params tuple in scratch[:size] through memory
// (more than 16 flat values): allocated with cabi_realloc, freed by the guest.
func (in *instance) callParamsArea(ctx context.Context, o op, size uint32) (uint64, error) {
	ptr, err := in.alloc(ctx, size, alignParams)
	if err != nil {
		return 0, err
	}
	if err := in.write(ptr, in.scratch[:size]); err != nil {
		return 0, err
	}
	in.begin().i32(ptr)
	return in.call(ctx, o)
}

// liftReturn reads size bytes at the return area, lifts them with lift,
// then calls the function's cabi_post_*. lift's *PolicyError (the guest's
// err case) comes back as is; any other error is an ABI error.
func (in *instance) liftReturn(ctx context.Context, o op, ret uint64, size uint32, lift func(b []byte) error) error {
	ptr := uint32(ret)
	b, err := in.view(ptr, size)
	if err != nil {
		return err
	}
	liftErr := lift(b)
	if _, isABI := liftErr.(*abiError); isABI {
		return liftErr
	}
	s := in.allocStack[:1]
	s[0] = uint64(ptr)
	if err := in.posts[o].CallWithStack(ctx, s); err != nil {
		return err
	}
	return liftErr
}

func (in *instance) close(ctx context.Context) { _ = in.mod.Close(ctx) }
