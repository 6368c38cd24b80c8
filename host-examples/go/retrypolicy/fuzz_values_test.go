package retrypolicy

import (
	"math"
	"reflect"
	"unicode/utf8"
)

// fz derives typed values from fuzzer bytes (zeros once they run out).
// bad records that a value the WIT cannot carry was produced (invalid
// UTF-8, an enum or discriminant out of range, a variant with no or two
// cases, a bool byte other than 0 or 1): lowering must refuse it, lifting
// its encoding must be an ABI error.
type fz struct {
	b   []byte
	bad bool
}

func (r *fz) u8() uint8 {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fz) u16() uint16 { return uint16(r.u8()) | uint16(r.u8())<<8 }
func (r *fz) u32() uint32 { return uint32(r.u16()) | uint32(r.u16())<<16 }
func (r *fz) u64() uint64 { return uint64(r.u32()) | uint64(r.u32())<<32 }

// f64 is any bit pattern, NaNs included (the glue must carry the bits).
func (r *fz) f64() float64 { return math.Float64frombits(r.u64()) }

// enum is a discriminant below n, or (1 in 16) one at or past n.
func (r *fz) enum(n uint8) uint8 {
	v := r.u8()
	if v&0xf0 == 0xf0 {
		r.bad = true
		return n + v&0x0f
	}
	return v % n
}

// str is up to 255 bytes, not always UTF-8; (1 in 8) a long id of up to 4 KiB.
func (r *fz) str() string {
	n := int(r.u8())
	if n >= 0xf8 {
		n = int(r.u16() & 0xfff)
		s := make([]byte, n)
		for i := range s {
			s[i] = 'a' + byte(i%26)
		}
		return string(s)
	}
	n = min(n, len(r.b))
	s := string(r.b[:n])
	r.b = r.b[n:]
	if !utf8.ValidString(s) {
		r.bad = true
	}
	return s
}

func (r *fz) flag() bool { return r.u8()&1 == 1 }

func (r *fz) backoff() Backoff {
	return Backoff{BaseMs: r.u64(), Factor: r.f64(), CapMs: r.u64(), Jitter: Jitter(r.enum(3))}
}

func (r *fz) budget() Budget {
	return Budget{Ratio: r.f64(), WindowMs: r.u64(), MinSample: r.u64(), Sliding: r.flag()}
}

func (r *fz) policy() Policy {
	return Policy{Backoff: r.backoff(), WindowMs: r.u64(), HardCap: r.u32(), Budget: r.budget()}
}

func (r *fz) state() DeliveryState {
	return DeliveryState{EventID: r.str(), EndpointID: r.str(), Attempt: r.u32(), MaxAttempts: r.u32(),
		FirstAttemptedAtMs: r.u64(), CredentialsRefreshed: r.flag()}
}

// outcome sets one case, or (bad) none or both.
func (r *fz) outcome() AttemptOutcome {
	k := r.u8()
	var o AttemptOutcome
	if k&1 == 0 || k&0x30 == 0x30 {
		resp := HTTPResponse{Status: r.u16()}
		if r.flag() {
			ms := r.u64()
			resp.RetryAfterMs = &ms
		}
		o.Response = &resp
	}
	if k&1 == 1 || k&0x30 == 0x30 {
		s := r.str()
		o.TransportError = &s
	}
	if k&0x30 == 0x20 {
		o = AttemptOutcome{}
	}
	if (o.Response == nil) == (o.TransportError == nil) {
		r.bad = true
	}
	return o
}

func (r *fz) bucketCounts() BucketCounts { return BucketCounts{Total: r.u64(), Retries: r.u64()} }

func (r *fz) budgetCounts() BudgetCounts {
	return BudgetCounts{Current: r.bucketCounts(), Previous: r.bucketCounts()}
}

func (r *fz) reservation() Reservation {
	return Reservation{Reserved: r.flag(), Counts: r.budgetCounts()}
}

// reply sets one case, or (bad) none or both.
func (r *fz) reply() StoreReply {
	k := r.u8()
	var v StoreReply
	v.Unavailable = k&1 == 1 || k&0x30 == 0x30
	if k&1 == 0 || k&0x30 == 0x30 {
		res := r.reservation()
		v.Answered = &res
	}
	if k&0x30 == 0x20 {
		v = StoreReply{}
	}
	if v.Unavailable == (v.Answered != nil) {
		r.bad = true
	}
	return v
}

func (r *fz) storeRequest() StoreRequest {
	return StoreRequest{Op: StoreOp(r.enum(3)), EndpointID: r.str(), WindowMs: r.u64(), Bucket: r.u64()}
}

func (r *fz) held() HeldBuckets {
	return HeldBuckets{Bucket: r.u64(), Current: r.bucketCounts(), Previous: r.bucketCounts()}
}

func (r *fz) document() PolicyDocument {
	d := PolicyDocument{Version: r.str(), Classes: make([]EventClass, r.u8()%5)}
	for i := range d.Classes {
		d.Classes[i] = EventClass{Name: r.str(), Policy: r.policy()}
	}
	return d
}

func (r *fz) schedule() Schedule {
	s := Schedule{MaxAttempts: r.u32(), ExpectedSpanMs: r.u64(), OffsetsMs: make([]uint64, r.u8()%20)}
	for i := range s.OffsetsMs {
		s.OffsetsMs[i] = r.u64()
	}
	s.WorstCaseSpanMs, s.LimitedBy = r.u64(), LimitedBy(r.enum(2))
	return s
}

func (r *fz) policyError() PolicyError {
	return PolicyError{Code: ErrorCode(r.enum(11)), Field: r.str(), Message: r.str()}
}

func (r *fz) admission() Admission {
	return Admission{Class: r.str(), PolicyVersion: r.str(), PolicyHash: r.str(),
		FirstAttemptedAtMs: r.u64(), DeadlineMs: r.u64(), Schedule: r.schedule()}
}

func (r *fz) stop() Stop {
	s := Stop{Reason: StopReason(r.enum(6)), DisableEndpoint: r.flag()}
	if r.flag() {
		s.DeadLetter = &DeadLetter{EventID: r.str(), EndpointID: r.str(), Attempts: r.u32(), ElapsedMs: r.u64(), StopReason: StopReason(r.enum(6))}
	}
	return s
}

func (r *fz) decision() Decision {
	if r.flag() {
		s := r.stop()
		return Decision{Stop: &s}
	}
	return Decision{Retry: &Retry{DelayMs: r.u64(), RefreshCredentials: r.flag()}}
}

func (r *fz) step() Step {
	var s Step
	if r.flag() {
		d := r.decision()
		s.Decision = &d
	}
	if r.flag() {
		q := r.storeRequest()
		s.Store = &q
	}
	return s
}

// same is reflect.DeepEqual with floats compared by their bits (a NaN
// must come back as the same NaN).
func same(a, b any) bool { return sameValue(reflect.ValueOf(a), reflect.ValueOf(b)) }

func sameValue(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
