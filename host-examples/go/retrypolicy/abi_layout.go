package retrypolicy

// Canonical-ABI memory layouts (component model, 32-bit memory) of the WIT
// types this host passes through linear memory: every offset and size
// below follows from the WIT by the canonical ABI's rules (a record aligns
// each field to its own alignment and its size to its largest one; a
// variant or option puts a u8 discriminant first and its payload at the
// largest case alignment; string and list are ptr:u32 + len:u32, align 4).
// The tests in abi_layout_test.go check the offsets against each other.
const (
	// backoff {base-ms u64, factor f64, cap-ms u64, jitter u8}: size 32, align 8.
	offBackoffBase, offBackoffFactor, offBackoffCap, offBackoffJitter = 0, 8, 16, 24
	sizeBackoff                                                       = 32

	// budget {ratio f64, window-ms u64, min-sample u64, sliding bool}: size 32, align 8.
	offBudgetRatio, offBudgetWindow, offBudgetMinSample, offBudgetSliding = 0, 8, 16, 24
	sizeBudget                                                            = 32

	// policy {backoff, window-ms u64, hard-cap u32, budget}: size 80, align 8.
	offPolicyBackoff, offPolicyWindow, offPolicyHardCap, offPolicyBudget = 0, 32, 40, 48
	sizePolicy                                                           = 80

	// delivery-state {event-id string, endpoint-id string, attempt u32,
	// max-attempts u32, first-attempted-at-ms u64, credentials-refreshed bool}:
	// size 40, align 8.
	offStateEventID, offStateEndpointID, offStateAttempt, offStateMaxAttempts = 0, 8, 16, 20
	offStateFirstAt, offStateRefreshed                                        = 24, 32
	sizeState                                                                 = 40

	// attempt-outcome variant {response(http-response), transport-error(string)}:
	// tag u8 at 0, payload at 8; size 32, align 8. http-response
	// {status u16, retry-after-ms option<u64>}: status at 0, option at 8
	// (tag u8 at 0, u64 at 8).
	offOutcomePayload          = 8
	offResponseStatus          = 0
	offResponseRetryAfterTag   = 8
	offResponseRetryAfterValue = 16
	sizeOutcome                = 32

	// bucket-counts {total u64, retries u64}: 16; budget-counts {current, previous}: 32.
	sizeBucketCounts = 16
	sizeBudgetCounts = 32

	// option<budget-counts>: tag u8 at 0, payload at 8; size 40.
	sizeOptionCounts = 40

	// decide params tuple (policy, state, outcome): 22 flat values > 16, so
	// passed through memory (align 8).
	offDecidePolicy, offDecideState, offDecideOutcome = 0, 80, 120
	sizeDecideParams                                  = 152
	// decide-with params tuple (policy, state, outcome, now-ms u64,
	// option<budget-counts>): 28 flat values, through memory (align 8).
	offDecideWithNow, offDecideWithCounts = 152, 160
	sizeDecideWithParams                  = 200
	alignParams                           = 8

	// policy-error {code u8, field string, message string}: size 20, align 4.
	offErrorCode, offErrorField, offErrorMessage = 0, 4, 12
	sizePolicyError                              = 20

	// schedule {max-attempts u32, expected-span-ms u64, offsets-ms list<u64>,
	// worst-case-span-ms u64, limited-by u8}: size 40, align 8.
	offSchedMax, offSchedSpan, offSchedOffsets, offSchedWorst, offSchedLimited = 0, 8, 16, 24, 32
	sizeSchedule                                                               = 40

	// dead-letter {event-id string, endpoint-id string, attempts u32,
	// elapsed-ms u64, stop-reason u8}: size 40, align 8.
	offDLEventID, offDLEndpointID, offDLAttempts, offDLElapsed, offDLReason = 0, 8, 16, 24, 32

	// decision variant {retry(retry), stop(stop)}: tag at 0, payload at 8.
	// retry {delay-ms u64, refresh-credentials bool}; stop {reason u8,
	// disable-endpoint bool, dead-letter option<dead-letter> (tag at 8,
	// record at 16)}.
	offDecisionPayload                          = 8
	offRetryDelay, offRetryRefresh              = 0, 8
	offStopReason, offStopDisable, offStopDLTag = 0, 1, 8
	offStopDL                                   = 16

	// event-class {name string, policy}: size 88, align 8.
	offClassName, offClassPolicy = 0, 8
	sizeEventClass               = 88

	// policy-document {version string, classes list<event-class>}: size 16, align 4.
	offDocVersion, offDocClasses = 0, 8

	// admission {class string, policy-version string, policy-hash string,
	// first-attempted-at-ms u64, deadline-ms u64, schedule}: size 80, align 8.
	offAdmClass, offAdmVersion, offAdmHash, offAdmFirstAt, offAdmDeadline, offAdmSchedule = 0, 8, 16, 24, 32, 40

	// result<T, E>: tag u8 at 0, payload at the larger alignment of T and E:
	// 8 when either holds a u64 (schedule, u64, decision, admission), 4
	// otherwise (outcome-class, bool, policy-document).
	offResultPayload8 = 8
	offResultPayload4 = 4
	// The largest result area read: result<decision, policy-error> (8 + 64)
	// and result<admission, policy-error> (8 + 80).
	sizeResultDecision  = 72
	sizeResultAdmission = 88
	sizeResultSchedule  = 48
	sizeResultU64       = 32 // 8 + max(u64, policy-error 20), aligned to 8
	sizeResultSmall     = 24 // result<outcome-class|bool|policy-document, policy-error>

	// Import results, written by the host at the guest's return pointer:
	// result<budget-counts, string> (payload at 8) and result<_, string>
	// (payload at 4).
	offReadPayload   = 8
	offRecordPayload = 4
)
