package redisbudget

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// CallStore is the Store answering the complete store calls of ABI 0.3
// (retrypolicy.CallStore): a format-2 call is the 8-argument EVALSHA and
// its 5-integer reply, a call with health fields (report and probe
// included) the 18-argument EVALSHA of docs/health.md section 3 ("Redis
// encoding") and its 11-integer reply. One Redis command per call (one
// more EVAL only after a NOSCRIPT, when nothing ran).
type CallStore struct{ s *Store }

var _ rp.CallStore = CallStore{}

// Calls is s as a retrypolicy.CallStore.
func (s *Store) Calls() CallStore { return CallStore{s} }

// Call answers call at nowMs with one EVALSHA under call.Key.
func (c CallStore) Call(ctx context.Context, call rp.StoreCall, nowMs uint64) (rp.CallReply, error) {
	if call.Health == nil {
		req, err := rp.RequestOf(call)
		if err != nil {
			return rp.CallReply{}, fmt.Errorf("redisbudget: %w", err)
		}
		res, err := c.s.CallKeyed(ctx, call.Key, req, call.Budget, nowMs)
		if err != nil {
			return rp.CallReply{}, err
		}
		return rp.CallReply{Reservation: &res}, nil
	}
	args := HealthArgs(call, nowMs, c.s.skewCheck)
	ctx, cancel := context.WithTimeout(ctx, c.s.timeout)
	defer cancel()
	keys := []string{call.Key}
	v, err := c.s.rdb.EvalSha(ctx, script.Hash(), keys, args...).Int64Slice()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		v, err = c.s.rdb.Eval(ctx, budgetLua, keys, args...).Int64Slice()
	}
	if err != nil {
		return rp.CallReply{}, fmt.Errorf("redisbudget: %s: %w", call.Op, err)
	}
	return ParseHealthReply(call.Op, v)
}

// HealthArgs are the 18 arguments of a health call (ARGV[1..18]).
func HealthArgs(call rp.StoreCall, nowMs uint64, skewCheck bool) []any {
	h, b := call.Health, call.Budget
	args := []any{call.Op.String(), call.Bucket, b.WindowMs, nowMs, strconv.FormatFloat(b.Ratio, 'g', -1, 64), b.MinSample,
		flag(b.Sliding), flag(skewCheck), h.Outcome.String(), h.PauseUntilMs, flag(h.Probe)}
	if c := h.Circuit; c != nil {
		return append(args, "1", strconv.FormatFloat(c.FailureRatio, 'g', -1, 64), c.MinSample, c.CooldownMs,
			c.CooldownMaxMs, c.Probes, c.ProbeIntervalMs)
	}
	return append(args, "0", "0", "0", "0", "0", "0", "0")
}

// ParseHealthReply reads the 11 integers of a health call: the format-2
// five (reserved -1 for report and probe), granted (-1 unless probe), then
// the view {paused_until_ms, opened_at_ms, cooldown_ms, closed_at_ms,
// as_of_ms}.
func ParseHealthReply(op rp.CallOp, v []int64) (rp.CallReply, error) {
	if len(v) != 11 {
		return rp.CallReply{}, fmt.Errorf("redisbudget: the script returned %d values to a health call, want 11", len(v))
	}
	for i, n := range v {
		if n < 0 && i != 0 && i != 5 {
			return rp.CallReply{}, errors.New("redisbudget: the script returned a negative count or instant")
		}
	}
	view := &rp.HealthView{PausedUntilMs: uint64(v[6]), OpenedAtMs: uint64(v[7]), CooldownMs: uint64(v[8]),
		ClosedAtMs: uint64(v[9]), AsOfMs: uint64(v[10])}
	out := rp.CallReply{View: view}
	switch op {
	case rp.CallOpRecord, rp.CallOpReserve, rp.CallOpRecordReserve:
		res, err := parseReply(v[:5])
		if err != nil {
			return rp.CallReply{}, err
		}
		out.Reservation = &res
	case rp.CallOpProbe:
		if v[5] != 0 && v[5] != 1 {
			return rp.CallReply{}, fmt.Errorf("redisbudget: granted flag %d for a probe", v[5])
		}
		g := v[5] == 1
		out.Granted = &g
	case rp.CallOpReport:
	default:
		return rp.CallReply{}, fmt.Errorf("redisbudget: no such op %s", op)
	}
	return out, nil
}
