package retrypolicy

import "testing"

// A tiny canonical-ABI layout calculator (sizes and alignments of the
// component model's memory representation), used to check the hand-written
// offsets in abi_layout.go against the WIT types they describe.

type layout struct {
	size, align int
	fields      []int // record field offsets, or the payload offset of a variant
}

func prim(n int) layout { return layout{size: n, align: n} }

var (
	u8, boolean, enum = prim(1), prim(1), prim(1)
	u16               = prim(2)
	u32               = prim(4)
	u64, f64          = prim(8), prim(8)
	str, list         = layout{size: 8, align: 4}, layout{size: 8, align: 4}
)

func alignTo(n, a int) int { return (n + a - 1) / a * a }

func record(fs ...layout) layout {
	l := layout{align: 1}
	off := 0
	for _, f := range fs {
		off = alignTo(off, f.align)
		l.fields = append(l.fields, off)
		off += f.size
		l.align = max(l.align, f.align)
	}
	l.size = alignTo(off, l.align)
	return l
}

// variant: a u8 tag (fewer than 256 cases), the payload at the largest case alignment.
func variant(cases ...layout) layout {
	align, size := 1, 0
	for _, c := range cases {
		align, size = max(align, c.align), max(size, c.size)
	}
	payload := alignTo(1, align)
	return layout{size: alignTo(payload+size, align), align: align, fields: []int{payload}}
}

func option(t layout) layout { return variant(prim(0), t) }

func result(ok, err layout) layout { return variant(ok, err) }

func TestLayoutConstantsFollowTheCanonicalABI(t *testing.T) {
	backoff := record(u64, f64, u64, enum)
	budget := record(f64, u64, u64, boolean)
	policy := record(backoff, u64, u32, budget)
	state := record(str, str, u32, u32, u64, boolean)
	response := record(u16, option(u64))
	outcome := variant(response, str)
	counts := record(record(u64, u64), record(u64, u64))
	schedule := record(u32, u64, list, u64, enum)
	policyError := record(enum, str, str)
	deadLetter := record(str, str, u32, u64, enum)
	retry := record(u64, boolean)
	stop := record(enum, boolean, option(deadLetter))
	decision := variant(retry, stop)
	eventClass := record(str, policy)
	document := record(str, list)
	admission := record(str, str, str, u64, u64, schedule)
	decideParams := record(policy, state, outcome)
	decideWithParams := record(policy, state, outcome, u64, option(counts))

	checks := []struct {
		name      string
		got, want []int
	}{
		{"backoff", []int{offBackoffBase, offBackoffFactor, offBackoffCap, offBackoffJitter, sizeBackoff}, append(backoff.fields, backoff.size)},
		{"budget", []int{offBudgetRatio, offBudgetWindow, offBudgetMinSample, offBudgetSliding, sizeBudget}, append(budget.fields, budget.size)},
		{"policy", []int{offPolicyBackoff, offPolicyWindow, offPolicyHardCap, offPolicyBudget, sizePolicy}, append(policy.fields, policy.size)},
		{"delivery-state", []int{offStateEventID, offStateEndpointID, offStateAttempt, offStateMaxAttempts, offStateFirstAt, offStateRefreshed, sizeState}, append(state.fields, state.size)},
		{"http-response", []int{offResponseStatus, offResponseRetryAfterTag, offResponseRetryAfterValue}, []int{response.fields[0], response.fields[1], response.fields[1] + option(u64).fields[0]}},
		{"attempt-outcome", []int{offOutcomePayload, sizeOutcome}, []int{outcome.fields[0], outcome.size}},
		{"budget-counts", []int{sizeBudgetCounts, sizeOptionCounts}, []int{counts.size, option(counts).size}},
		{"decide params", []int{offDecidePolicy, offDecideState, offDecideOutcome, sizeDecideParams, alignParams}, append(decideParams.fields, decideParams.size, decideParams.align)},
		{"decide-with params", []int{offDecideWithNow, offDecideWithCounts, sizeDecideWithParams, alignParams}, []int{decideWithParams.fields[3], decideWithParams.fields[4], decideWithParams.size, decideWithParams.align}},
		{"policy-error", []int{offErrorCode, offErrorField, offErrorMessage, sizePolicyError}, append(policyError.fields, policyError.size)},
		{"schedule", []int{offSchedMax, offSchedSpan, offSchedOffsets, offSchedWorst, offSchedLimited, sizeSchedule}, append(schedule.fields, schedule.size)},
		{"dead-letter", []int{offDLEventID, offDLEndpointID, offDLAttempts, offDLElapsed, offDLReason}, deadLetter.fields},
		{"decision", []int{offDecisionPayload, offRetryDelay, offRetryRefresh, offStopReason, offStopDisable, offStopDLTag, offStopDL},
			[]int{decision.fields[0], retry.fields[0], retry.fields[1], stop.fields[0], stop.fields[1], stop.fields[2], stop.fields[2] + option(deadLetter).fields[0]}},
		{"event-class", []int{offClassName, offClassPolicy, sizeEventClass}, append(eventClass.fields, eventClass.size)},
		{"policy-document", []int{offDocVersion, offDocClasses}, document.fields},
		{"admission", []int{offAdmClass, offAdmVersion, offAdmHash, offAdmFirstAt, offAdmDeadline, offAdmSchedule}, admission.fields},
		{"result payloads", []int{offResultPayload8, offResultPayload4}, []int{result(u64, policyError).fields[0], result(enum, policyError).fields[0]}},
		{"result sizes", []int{sizeResultDecision, sizeResultAdmission, sizeResultSchedule, sizeResultU64, sizeResultSmall},
			[]int{result(decision, policyError).size, result(admission, policyError).size, result(schedule, policyError).size,
				result(u64, policyError).size, max(result(enum, policyError).size, result(boolean, policyError).size, result(document, policyError).size)}},
		{"import results", []int{offReadPayload, offRecordPayload}, []int{result(counts, str).fields[0], result(prim(0), str).fields[0]}},
	}
	for _, c := range checks {
		if len(c.got) != len(c.want) {
			t.Errorf("%s: %d constants for %d computed values", c.name, len(c.got), len(c.want))
			continue
		}
		for i := range c.got {
			if c.got[i] != c.want[i] {
				t.Errorf("%s: constant #%d is %d, the canonical ABI gives %d", c.name, i, c.got[i], c.want[i])
			}
		}
	}
}
