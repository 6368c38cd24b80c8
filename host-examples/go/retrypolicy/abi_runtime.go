package retrypolicy

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/tetratelabs/wazero/api"
)

// The small, type-independent runtime the generated canonical-ABI code
// (zz_generated_abi.go) is written against: guest memory access with bounds
// checks, the guest allocator, and the two error kinds of the boundary.

var le = binary.LittleEndian

const reallocExport = "cabi_realloc"

// abi is one guest's linear memory and allocator. The generated lift and
// lower helpers are its methods; an instance embeds one, and an import
// call builds one around the calling module.
type abi struct {
	mem     api.Memory
	mod     api.Module
	realloc api.Function
	rstack  [4]uint64
	allocs  int    // guest allocations since the call began
	lifted  uint64 // bytes of strings and lists lifted since the call began
}

// alloc reserves size bytes aligned to align in guest memory (cabi_realloc).
// A zero-sized area is the aligned dangling pointer the guest expects.
func (a *abi) alloc(ctx context.Context, align, size uint32) (uint32, error) {
	if size == 0 {
		return align, nil
	}
	if a.realloc == nil && a.mod != nil {
		a.realloc = a.mod.ExportedFunction(reallocExport)
	}
	if a.realloc == nil {
		return 0, abiErrorf("the module does not export %s", reallocExport)
	}
	s := a.rstack[:4]
	s[0], s[1], s[2], s[3] = 0, 0, uint64(align), uint64(size)
	if err := a.realloc.CallWithStack(ctx, s); err != nil {
		return 0, err
	}
	a.allocs++
	ptr := uint32(s[0])
	if _, ok := a.mem.Read(ptr, size); !ok || ptr%align != 0 {
		return 0, abiErrorf("%s returned %#x for %d bytes aligned to %d: outside memory or misaligned", reallocExport, ptr, size, align)
	}
	return ptr, nil
}

// writeArea copies b into a fresh guest area and returns its address.
func (a *abi) writeArea(ctx context.Context, align uint32, b []byte) (uint32, error) {
	ptr, err := a.alloc(ctx, align, uint32(len(b)))
	if err != nil {
		return 0, err
	}
	if len(b) > 0 && !a.mem.Write(ptr, b) {
		return 0, abiErrorf("%d bytes at %#x are outside memory", len(b), ptr)
	}
	return ptr, nil
}

// lowerString copies s into guest memory; a WIT string is valid UTF-8 and
// addressable in a 32-bit memory, anything else is refused as input.
func (a *abi) lowerString(ctx context.Context, s string) (uint32, uint32, error) {
	if len(s) > math.MaxInt32 {
		return 0, 0, lowerErrorf("string", "is %d bytes, too long", len(s))
	}
	if !utf8.ValidString(s) {
		return 0, 0, lowerErrorf("string", "is not valid UTF-8")
	}
	ptr, err := a.alloc(ctx, 1, uint32(len(s)))
	if err != nil {
		return 0, 0, err
	}
	if len(s) > 0 && !a.mem.WriteString(ptr, s) {
		return 0, 0, abiErrorf("a string of %d bytes at %#x is outside memory", len(s), ptr)
	}
	return ptr, uint32(len(s)), nil
}

// listArea is a zeroed host buffer for n elements of size bytes.
func (a *abi) listArea(n, size int) ([]byte, error) {
	if n > math.MaxInt32/size {
		return nil, lowerErrorf("list", "has %d elements, too many", n)
	}
	return make([]byte, n*size), nil
}

// view is n bytes of guest memory at ptr (valid until the guest allocates).
func (a *abi) view(ptr, n uint32) ([]byte, error) {
	b, ok := a.mem.Read(ptr, n)
	if !ok {
		return nil, abiErrorf("%d bytes at %#x are outside memory", n, ptr)
	}
	return b, nil
}

// viewAligned is view for a value the guest placed at ptr, which the
// canonical ABI requires to be aligned to align (a return area).
func (a *abi) viewAligned(ptr, n, align uint32) ([]byte, error) {
	if ptr%align != 0 {
		return nil, abiErrorf("%#x is not aligned to %d", ptr, align)
	}
	return a.view(ptr, n)
}

// listView is the memory of a guest list of n elements of size bytes,
// each aligned to align (so is the list, as the canonical ABI requires).
func (a *abi) listView(ptr, n, size, align uint32) ([]byte, error) {
	if ptr%align != 0 {
		return nil, abiErrorf("a list at %#x is not aligned to %d", ptr, align)
	}
	if uint64(n)*uint64(size) > math.MaxUint32 {
		return nil, abiErrorf("a list of %d elements of %d bytes", n, size)
	}
	b, err := a.view(ptr, n*size)
	if err != nil {
		return nil, err
	}
	return b, a.charge(ptr, n*size)
}

// charge counts n bytes of a string or list at ptr as lifted in this call.
// The strings and lists of a well-formed answer are disjoint areas of the
// guest's memory, so more bytes than the memory holds means aliased areas
// (a list of N strings all at one address): copying them would cost N
// times the memory, so the answer is refused instead.
func (a *abi) charge(ptr, n uint32) error {
	if a.lifted+uint64(n) > uint64(a.mem.Size()) {
		return abiErrorf("%d more bytes at %#x would make %d bytes of strings and lists lifted from a memory of %d: aliased areas", n, ptr, a.lifted+uint64(n), a.mem.Size())
	}
	a.lifted += uint64(n)
	return nil
}

// liftString copies a guest string out (it must be valid UTF-8).
func (a *abi) liftString(ptr, n uint32) (string, error) {
	b, err := a.view(ptr, n)
	if err != nil {
		return "", err
	}
	if err := a.charge(ptr, n); err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", abiErrorf("the string at %#x is not valid UTF-8", ptr)
	}
	return string(b), nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// abiError is a value the guest should never have produced (a pointer
// outside memory, a bad discriminant): the call is a *TrapError.
type abiError struct{ msg string }

func (e *abiError) Error() string { return "canonical ABI: " + e.msg }

func abiErrorf(format string, args ...any) error { return &abiError{fmt.Sprintf(format, args...)} }

// lowerError is a Go value the WIT cannot carry (an enum value out of
// range, invalid UTF-8, a variant with no or two cases set): the caller's
// input, reported as a *PolicyError before the guest sees it.
type lowerError struct {
	Field string // dotted path, built outward by withField
	Type  string // the Go type refused
	Msg   string
}

func (e *lowerError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Msg) }

func lowerErrorf(typ, format string, args ...any) error {
	return &lowerError{Type: typ, Msg: fmt.Sprintf(format, args...)}
}

func enumError(typ string, v uint64) error {
	return &lowerError{Type: typ, Msg: fmt.Sprintf("%d is not a %s", v, typ)}
}

// withField prefixes a lowerError's path with the field it was found in.
func withField(name string, err error) error {
	le, ok := err.(*lowerError)
	if !ok {
		return err
	}
	out := *le
	if out.Field == "" {
		out.Field = name
	} else {
		out.Field = name + "." + out.Field
	}
	return &out
}
