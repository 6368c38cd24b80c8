package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// BrokenError is a vector that does not follow the format (an unknown or
// missing field, an unknown op): reported as a failure of its case, never
// compared with its expectation.
type BrokenError struct{ Msg string }

func (e *BrokenError) Error() string { return "broken vector: " + e.Msg }

func broken(format string, args ...any) error { return &BrokenError{fmt.Sprintf(format, args...)} }

// decoder reads case inputs strictly. Missing and unknown keys are broken
// vectors (returned at once); a value of the wrong JSON type or range is an
// invalid_input *PolicyError, and an unknown jitter an invalid_backoff one:
// the first is kept as the case's result while decoding goes on, so a
// broken vector is still reported as broken.
type decoder struct {
	first error
}

func (d *decoder) fail(err error) {
	if d.first == nil {
		d.first = err
	}
}

// obj is a JSON object whose keys were checked against its schema.
type obj struct {
	d    *decoder
	path string
	m    map[string]json.RawMessage
}

// object checks raw against required and optional keys. A non-object is
// an invalid_input at path (its fields then read as zero values).
func (d *decoder) object(path string, raw json.RawMessage, required, optional []string) (*obj, error) {
	o := &obj{d: d, path: path}
	if err := json.Unmarshal(raw, &o.m); err != nil || o.m == nil {
		d.fail(&rp.PolicyError{Code: rp.ErrorCodeInvalidInput, Field: path, Message: "expected an object"})
		o.m = nil
		return o, nil
	}
	known := make(map[string]bool, len(required)+len(optional))
	for _, k := range append(append([]string(nil), required...), optional...) {
		known[k] = true
	}
	var unknown []string
	for k := range o.m {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, broken("unknown field(s) %s in %s", strings.Join(unknown, ", "), o.where())
	}
	for _, k := range required {
		if _, ok := o.m[k]; !ok {
			return nil, broken("missing field %q in %s", k, o.where())
		}
	}
	return o, nil
}

func (o *obj) where() string {
	if o.path == "" {
		return "the input"
	}
	return o.path
}

func (o *obj) field(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

func (o *obj) has(name string) bool { _, ok := o.m[name]; return ok }

func (o *obj) raw(name string) json.RawMessage { return o.m[name] }

func (o *obj) bad(name, format string, args ...any) {
	o.d.fail(&rp.PolicyError{Code: rp.ErrorCodeInvalidInput, Field: o.field(name), Message: fmt.Sprintf(format, args...)})
}

// number returns the literal text of a JSON number, or "" after recording
// a type error.
func (o *obj) number(name string) string {
	raw := bytes.TrimSpace(o.m[name])
	if o.m == nil {
		return ""
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		o.bad(name, "expected a number")
		return ""
	}
	n, ok := v.(json.Number)
	if !ok {
		o.bad(name, "expected a number, got %s", raw)
		return ""
	}
	return n.String()
}

func (o *obj) uint(name string, bits int) uint64 {
	s := o.number(name)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseUint(s, 10, bits)
	if err == nil {
		return v
	}
	// A JSON number is its value however it is spelled: 900000.0, 2e3 and
	// -0 are integers, as in every other host. big.Rat reads the decimal
	// exactly (no float rounding).
	if r, ok := new(big.Rat).SetString(s); ok && r.IsInt() && r.Sign() >= 0 && r.Num().BitLen() <= bits {
		return r.Num().Uint64()
	}
	o.bad(name, "expected an integer in 0..=%d, got %s", uint64(math.MaxUint64)>>(64-bits), s)
	return 0
}

func (o *obj) u64(name string) uint64 { return o.uint(name, 64) }
func (o *obj) u32(name string) uint32 { return uint32(o.uint(name, 32)) }

// status: an HTTP status beyond 16 bits is as invalid as 600, so it
// saturates to 65535 and is refused as invalid_status in the contract's
// validation order (as policy-core's codec reads it).
func (o *obj) status(name string) uint16 {
	v := o.uint(name, 64)
	if v > math.MaxUint16 {
		return math.MaxUint16
	}
	return uint16(v)
}

func (o *obj) f64(name string) float64 {
	s := o.number(name)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) { // out of range parses to ±Inf: the component refuses it
		o.bad(name, "expected a number, got %s", s)
		return 0
	}
	return v
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func (o *obj) boolean(name string) bool {
	if o.m == nil {
		return false
	}
	var v bool
	if err := json.Unmarshal(o.m[name], &v); err != nil {
		o.bad(name, "expected a boolean")
	}
	return v
}

func (o *obj) str(name string) string {
	if o.m == nil {
		return ""
	}
	var v string
	if err := json.Unmarshal(o.m[name], &v); err != nil {
		o.bad(name, "expected a string")
	}
	return v
}

func (o *obj) isNull(name string) bool { return string(bytes.TrimSpace(o.m[name])) == "null" }

// child decodes a nested object field.
func (o *obj) child(name string, required, optional []string) (*obj, error) {
	return o.d.object(o.field(name), o.m[name], required, optional)
}
