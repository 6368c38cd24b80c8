package retrypolicy

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
)

// Lowering: Go values into the canonical ABI, either as flat core values on
// the call stack or as bytes in the guest's linear memory. Strings and
// lists are allocated with the guest's own `cabi_realloc`; the guest takes
// ownership of them (and of a params area) and frees them itself.

var le = binary.LittleEndian

// flatArgs collects flat core values for a direct call.
type flatArgs struct {
	s []uint64
}

func (f *flatArgs) i32(v uint32)  { f.s = append(f.s, uint64(v)) }
func (f *flatArgs) i64(v uint64)  { f.s = append(f.s, v) }
func (f *flatArgs) f64(v float64) { f.s = append(f.s, math.Float64bits(v)) }
func (f *flatArgs) boolean(v bool) {
	if v {
		f.i32(1)
	} else {
		f.i32(0)
	}
}

// backoff flattens to (i64, f64, i64, i32).
func (f *flatArgs) backoff(b Backoff) {
	f.i64(b.BaseMs)
	f.f64(b.Factor)
	f.i64(b.CapMs)
	f.i32(uint32(b.Jitter))
}

// budget flattens to (f64, i64, i64, i32).
func (f *flatArgs) budget(b Budget) {
	f.f64(b.Ratio)
	f.i64(b.WindowMs)
	f.i64(b.MinSample)
	f.boolean(b.Sliding)
}

// alloc calls cabi_realloc(0, 0, align, size) and checks the answer.
func (in *instance) alloc(ctx context.Context, size, align uint32) (uint32, error) {
	s := in.allocStack[:]
	s[0], s[1], s[2], s[3] = 0, 0, uint64(align), uint64(size)
	if err := in.realloc.CallWithStack(ctx, s); err != nil {
		return 0, err
	}
	ptr := uint32(s[0])
	if uint64(ptr)+uint64(size) > uint64(in.mem.Size()) || ptr%align != 0 {
		return 0, fmt.Errorf("cabi_realloc returned %#x for %d bytes (align %d), outside memory", ptr, size, align)
	}
	return ptr, nil
}

// lowerString copies s into a fresh guest allocation (callers have checked
// that s is valid UTF-8 and shorter than 4 GiB).
func (in *instance) lowerString(ctx context.Context, s string) (ptr, n uint32, err error) {
	n = uint32(len(s))
	if ptr, err = in.alloc(ctx, n, 1); err != nil {
		return 0, 0, err
	}
	if !in.mem.WriteString(ptr, s) {
		return 0, 0, fmt.Errorf("writing a %d-byte string at %#x is outside memory", n, ptr)
	}
	return ptr, n, nil
}

// write copies b into guest memory at ptr.
func (in *instance) write(ptr uint32, b []byte) error {
	if !in.mem.Write(ptr, b) {
		return fmt.Errorf("writing %d bytes at %#x is outside memory", len(b), ptr)
	}
	return nil
}

func putBool(b []byte, off int, v bool) {
	if v {
		b[off] = 1
	} else {
		b[off] = 0
	}
}

func putString(b []byte, off int, ptr, n uint32) {
	le.PutUint32(b[off:], ptr)
	le.PutUint32(b[off+4:], n)
}

func putBackoff(b []byte, off int, v Backoff) {
	le.PutUint64(b[off+offBackoffBase:], v.BaseMs)
	le.PutUint64(b[off+offBackoffFactor:], math.Float64bits(v.Factor))
	le.PutUint64(b[off+offBackoffCap:], v.CapMs)
	b[off+offBackoffJitter] = byte(v.Jitter)
}

func putBudget(b []byte, off int, v Budget) {
	le.PutUint64(b[off+offBudgetRatio:], math.Float64bits(v.Ratio))
	le.PutUint64(b[off+offBudgetWindow:], v.WindowMs)
	le.PutUint64(b[off+offBudgetMinSample:], v.MinSample)
	putBool(b, off+offBudgetSliding, v.Sliding)
}

func putPolicy(b []byte, off int, p Policy) {
	putBackoff(b, off+offPolicyBackoff, p.Backoff)
	le.PutUint64(b[off+offPolicyWindow:], p.WindowMs)
	le.PutUint32(b[off+offPolicyHardCap:], p.HardCap)
	putBudget(b, off+offPolicyBudget, p.Budget)
}

func putCounts(b []byte, off int, c BudgetCounts) {
	le.PutUint64(b[off:], c.Current.Total)
	le.PutUint64(b[off+8:], c.Current.Retries)
	le.PutUint64(b[off+16:], c.Previous.Total)
	le.PutUint64(b[off+24:], c.Previous.Retries)
}

// putState writes a delivery-state at off, allocating its two strings.
func (in *instance) putState(ctx context.Context, b []byte, off int, s DeliveryState) error {
	for _, f := range []struct {
		at int
		v  string
	}{{offStateEventID, s.EventID}, {offStateEndpointID, s.EndpointID}} {
		ptr, n, err := in.lowerString(ctx, f.v)
		if err != nil {
			return err
		}
		putString(b, off+f.at, ptr, n)
	}
	le.PutUint32(b[off+offStateAttempt:], s.Attempt)
	le.PutUint32(b[off+offStateMaxAttempts:], s.MaxAttempts)
	le.PutUint64(b[off+offStateFirstAt:], s.FirstAttemptedAtMs)
	putBool(b, off+offStateRefreshed, s.CredentialsRefreshed)
	return nil
}

// putOutcome writes an attempt-outcome at off (tag 0 response, 1 transport-error).
func (in *instance) putOutcome(ctx context.Context, b []byte, off int, o Outcome) error {
	p := off + offOutcomePayload
	if r := o.Response; r != nil {
		b[off] = 0
		le.PutUint16(b[p+offResponseStatus:], r.Status)
		if r.RetryAfterMs != nil {
			b[p+offResponseRetryAfterTag] = 1
			le.PutUint64(b[p+offResponseRetryAfterValue:], *r.RetryAfterMs)
		}
		return nil
	}
	b[off] = 1
	ptr, n, err := in.lowerString(ctx, o.ErrorKind)
	if err != nil {
		return err
	}
	putString(b, p, ptr, n)
	return nil
}

// lowerDocument writes a policy-document's flat form (version ptr/len,
// classes ptr/len) onto f, allocating the class list and every string.
func (in *instance) lowerDocument(ctx context.Context, f *flatArgs, d PolicyDocument) error {
	vp, vn, err := in.lowerString(ctx, d.Version)
	if err != nil {
		return err
	}
	n := uint32(len(d.Classes))
	list, err := in.alloc(ctx, n*sizeEventClass, 8)
	if err != nil {
		return err
	}
	buf := make([]byte, sizeEventClass)
	for i, c := range d.Classes {
		clear(buf)
		np, nn, err := in.lowerString(ctx, c.Name)
		if err != nil {
			return err
		}
		putString(buf, offClassName, np, nn)
		putPolicy(buf, offClassPolicy, c.Policy)
		if err := in.write(list+uint32(i)*sizeEventClass, buf); err != nil {
			return err
		}
	}
	f.i32(vp)
	f.i32(vn)
	f.i32(list)
	f.i32(n)
	return nil
}
