package retrypolicy

import (
	"context"
	"math"
)

// The test's own canonical-ABI layout of the WIT types, written apart from
// the generated glue: enc* stores a result value into the fake guest's
// memory as the guest would (for the generated lift* to read back), dec*
// reads what the generated lowering stored for a param.

func (g *fakeGuest) put(align, n uint32) uint32 {
	s := []uint64{0, 0, uint64(align), uint64(n)}
	g.realloc(context.Background(), nil, s)
	clear(g.bytes(uint32(s[0]), n)) // the heap is reused without load
	return uint32(s[0])
}

func (g *fakeGuest) w8(at uint32, v uint8)   { g.bytes(at, 1)[0] = v }
func (g *fakeGuest) w32(at uint32, v uint32) { le.PutUint32(g.bytes(at, 4), v) }
func (g *fakeGuest) w64(at uint32, v uint64) { le.PutUint64(g.bytes(at, 8), v) }
func (g *fakeGuest) wb(at uint32, v bool)    { g.w8(at, uint8(b2u(v))) }
func (g *fakeGuest) r8(at uint32) uint8      { return g.bytes(at, 1)[0] }
func (g *fakeGuest) r32(at uint32) uint32    { return le.Uint32(g.bytes(at, 4)) }
func (g *fakeGuest) r64(at uint32) uint64    { return le.Uint64(g.bytes(at, 8)) }

func (g *fakeGuest) encStr(at uint32, s string) {
	p := g.put(1, uint32(len(s)))
	if len(s) > 0 {
		copy(g.bytes(p, uint32(len(s))), s)
	}
	g.w32(at, p)
	g.w32(at+4, uint32(len(s)))
}

func (g *fakeGuest) decStr(at uint32) string {
	return string(g.bytes(g.r32(at), g.r32(at+4)))
}

func (g *fakeGuest) encBackoff(at uint32, v *Backoff) {
	g.w64(at, v.BaseMs)
	g.w64(at+8, math.Float64bits(v.Factor))
	g.w64(at+16, v.CapMs)
	g.w8(at+24, uint8(v.Jitter))
}

func (g *fakeGuest) encBudget(at uint32, v *Budget) {
	g.w64(at, math.Float64bits(v.Ratio))
	g.w64(at+8, v.WindowMs)
	g.w64(at+16, v.MinSample)
	g.wb(at+24, v.Sliding)
}

func (g *fakeGuest) encPolicy(at uint32, v *Policy) {
	g.encBackoff(at, &v.Backoff)
	g.w64(at+32, v.WindowMs)
	g.w32(at+40, v.HardCap)
	g.encBudget(at+48, &v.Budget)
}

func (g *fakeGuest) encCounts(at uint32, v *BudgetCounts) {
	g.w64(at, v.Current.Total)
	g.w64(at+8, v.Current.Retries)
	g.w64(at+16, v.Previous.Total)
	g.w64(at+24, v.Previous.Retries)
}

func (g *fakeGuest) encReservation(at uint32, v *Reservation) {
	g.wb(at, v.Reserved)
	g.encCounts(at+8, &v.Counts)
}

func (g *fakeGuest) encHeld(at uint32, v *HeldBuckets) {
	g.w64(at, v.Bucket)
	g.encCounts(at+8, &BudgetCounts{Current: v.Current, Previous: v.Previous})
}

func (g *fakeGuest) encStoreRequest(at uint32, v *StoreRequest) {
	g.w8(at, uint8(v.Op))
	g.encStr(at+4, v.EndpointID)
	g.w64(at+16, v.WindowMs)
	g.w64(at+24, v.Bucket)
}

func (g *fakeGuest) encSchedule(at uint32, v *Schedule) {
	g.w32(at, v.MaxAttempts)
	g.w64(at+8, v.ExpectedSpanMs)
	p := g.put(8, uint32(8*len(v.OffsetsMs)))
	for i, o := range v.OffsetsMs {
		g.w64(p+uint32(8*i), o)
	}
	g.w32(at+16, p)
	g.w32(at+20, uint32(len(v.OffsetsMs)))
	g.w64(at+24, v.WorstCaseSpanMs)
	g.w8(at+32, uint8(v.LimitedBy))
}

func (g *fakeGuest) encPolicyError(at uint32, v *PolicyError) {
	g.w8(at, uint8(v.Code))
	g.encStr(at+4, v.Field)
	g.encStr(at+12, v.Message)
}

func (g *fakeGuest) encDocument(at uint32, v *PolicyDocument) {
	g.encStr(at, v.Version)
	p := g.put(8, uint32(88*len(v.Classes)))
	for i := range v.Classes {
		c := p + uint32(88*i)
		g.encStr(c, v.Classes[i].Name)
		g.encPolicy(c+8, &v.Classes[i].Policy)
	}
	g.w32(at+8, p)
	g.w32(at+12, uint32(len(v.Classes)))
}

func (g *fakeGuest) encAdmission(at uint32, v *Admission) {
	g.encStr(at, v.Class)
	g.encStr(at+8, v.PolicyVersion)
	g.encStr(at+16, v.PolicyHash)
	g.w64(at+24, v.FirstAttemptedAtMs)
	g.w64(at+32, v.DeadlineMs)
	g.encSchedule(at+40, &v.Schedule)
}

func (g *fakeGuest) encStop(at uint32, v *Stop) {
	g.w8(at, uint8(v.Reason))
	g.wb(at+1, v.DisableEndpoint)
	g.wb(at+8, v.DeadLetter != nil)
	if d := v.DeadLetter; d != nil {
		g.encStr(at+16, d.EventID)
		g.encStr(at+24, d.EndpointID)
		g.w32(at+32, d.Attempts)
		g.w64(at+40, d.ElapsedMs)
		g.w8(at+48, uint8(d.StopReason))
	}
}

func (g *fakeGuest) encDecision(at uint32, v *Decision) {
	if v.Retry != nil {
		g.w8(at, 0)
		g.w64(at+8, v.Retry.DelayMs)
		g.wb(at+16, v.Retry.RefreshCredentials)
		return
	}
	g.w8(at, 1)
	g.encStop(at+8, v.Stop)
}

func (g *fakeGuest) encStep(at uint32, v *Step) {
	g.wb(at, v.Decision != nil)
	if v.Decision != nil {
		g.encDecision(at+8, v.Decision)
	}
	g.wb(at+72, v.Store != nil)
	if v.Store != nil {
		g.encStoreRequest(at+80, v.Store)
	}
}

func (g *fakeGuest) decBackoff(at uint32) Backoff {
	return Backoff{BaseMs: g.r64(at), Factor: math.Float64frombits(g.r64(at + 8)), CapMs: g.r64(at + 16), Jitter: Jitter(g.r8(at + 24))}
}

func (g *fakeGuest) decPolicy(at uint32) Policy {
	return Policy{Backoff: g.decBackoff(at), WindowMs: g.r64(at + 32), HardCap: g.r32(at + 40),
		Budget: Budget{Ratio: math.Float64frombits(g.r64(at + 48)), WindowMs: g.r64(at + 56), MinSample: g.r64(at + 64), Sliding: g.r8(at+72) == 1}}
}

func (g *fakeGuest) decState(at uint32) DeliveryState {
	return DeliveryState{EventID: g.decStr(at), EndpointID: g.decStr(at + 8), Attempt: g.r32(at + 16),
		MaxAttempts: g.r32(at + 20), FirstAttemptedAtMs: g.r64(at + 24), CredentialsRefreshed: g.r8(at+32) == 1}
}

func (g *fakeGuest) decOutcome(at uint32) AttemptOutcome {
	if g.r8(at) == 1 {
		s := g.decStr(at + 8)
		return AttemptOutcome{TransportError: &s}
	}
	r := HTTPResponse{Status: le.Uint16(g.bytes(at+8, 2))}
	if g.r8(at+16) == 1 {
		ms := g.r64(at + 24)
		r.RetryAfterMs = &ms
	}
	return AttemptOutcome{Response: &r}
}

func (g *fakeGuest) decCounts(at uint32) BudgetCounts {
	return BudgetCounts{Current: BucketCounts{g.r64(at), g.r64(at + 8)}, Previous: BucketCounts{g.r64(at + 16), g.r64(at + 24)}}
}

func (g *fakeGuest) decReply(at uint32) StoreReply {
	if g.r8(at) == 0 {
		return StoreReply{Unavailable: true}
	}
	return StoreReply{Answered: &Reservation{Reserved: g.r8(at+8) == 1, Counts: g.decCounts(at + 16)}}
}
