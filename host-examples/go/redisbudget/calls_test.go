package redisbudget

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// argCounts records how many arguments each EVALSHA/EVAL carried.
type argCounts struct {
	mu   sync.Mutex
	argv []int // ARGV length of each script command
}

func (a *argCounts) DialHook(next redis.DialHook) redis.DialHook { return next }
func (a *argCounts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if n := cmd.Name(); n == "evalsha" || n == "eval" {
			a.mu.Lock()
			a.argv = append(a.argv, len(cmd.Args())-4) // name, sha/script, numkeys, the key
			a.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}
func (a *argCounts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

var healthSection = rp.Health{PauseMaxMs: 60000, CacheMs: 1000, Release: rp.Release{Multiple: 1, FloorPerS: 1},
	Circuit: &rp.Circuit{FailureRatio: 0.5, MinSample: 1, CooldownMs: 5000, CooldownMaxMs: 20000, Probes: 1, ProbeIntervalMs: 1000}}

func TestAHealthCallSendsEighteenArgumentsAndItsElevenIntegerReplyMatchesTheInMemoryStore(t *testing.T) {
	rdb := startRedis(t)
	args := &argCounts{}
	rdb.AddHook(args)
	ctx := context.Background()
	e := engine(t)
	c, err := e.Compile(ctx, policy, &healthSection)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	redisStore := New(rdb, e, WithoutSkewCheck()).Calls()
	memory := rp.NewMemoryCallStore(e)
	now := uint64(1_000_000_000)
	call := func(op rp.CallOp, at uint64, outcome rp.HealthOutcome) rp.StoreCall {
		asked := op
		if op == rp.CallOpReport { // call-for makes reserve and probe only: a report is an attempt's reserve call, re-opped
			asked = rp.CallOpReserve
		}
		sc, err := c.CallFor(ctx, asked, "ep_health", at)
		if err != nil || sc.Health == nil {
			t.Fatalf("call-for %s: %+v %v", op, sc, err)
		}
		sc.Op, sc.Health.Outcome = op, outcome
		return sc
	}
	steps := []struct {
		call rp.StoreCall
		at   uint64
	}{
		{call(rp.CallOpProbe, now, rp.HealthOutcomeNone), now},             // closed: not granted
		{call(rp.CallOpReport, now, rp.HealthOutcomeFailure), now},         // opens the circuit
		{call(rp.CallOpReserve, now+1, rp.HealthOutcomeNone), now + 1},     // a reservation and the open view
		{call(rp.CallOpProbe, now+6000, rp.HealthOutcomeNone), now + 6000}, // cooldown over: granted
		{call(rp.CallOpProbe, now+6001, rp.HealthOutcomeNone), now + 6001}, // this window's one probe is taken
	}
	var granted []bool
	for i, s := range steps {
		got, err := redisStore.Call(ctx, s.call, s.at)
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, s.call.Op, err)
		}
		want, err := memory.Call(ctx, s.call, s.at)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d (%s): redis %+v (view %+v), in memory %+v (view %+v)", i, s.call.Op, got, got.View, want, want.View)
		}
		if got.View == nil || got.View.AsOfMs != s.at {
			t.Fatalf("step %d: no view as of %d: %+v", i, s.at, got.View)
		}
		if got.Granted != nil {
			granted = append(granted, *got.Granted)
		}
	}
	if !reflect.DeepEqual(granted, []bool{false, true, false}) {
		t.Fatalf("probes granted %v, want [false true false]", granted)
	}
	if want := []int{18, 18, 18, 18, 18, 18}; !reflect.DeepEqual(args.argv, want) {
		t.Fatalf("script commands' ARGV lengths %v, want %v (the first EVALSHA's NOSCRIPT then one EVAL, then one EVALSHA each)", args.argv, want)
	}
}

func TestAFormatTwoCallThroughTheCallStoreIsStillEightArgumentsAndFiveIntegers(t *testing.T) {
	rdb := startRedis(t)
	args := &argCounts{}
	rdb.AddHook(args)
	ctx := context.Background()
	e := engine(t)
	c, err := e.Compile(ctx, policy, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, err := c.CallFor(ctx, rp.CallOpReserve, "ep_2", nowMs())
	if err != nil || sc.Health != nil {
		t.Fatalf("%+v %v", sc, err)
	}
	got, err := New(rdb, e).Calls().Call(ctx, sc, nowMs())
	if err != nil || got.Reservation == nil || got.View != nil {
		t.Fatalf("want a reservation and no view: %+v %v", got, err)
	}
	for _, n := range args.argv {
		if n != 8 {
			t.Fatalf("ARGV lengths %v, want 8 each", args.argv)
		}
	}
}

func TestAShortHealthReplyIsAnErrorNotAView(t *testing.T) {
	if _, err := ParseHealthReply(rp.CallOpReport, []int64{-1, 0, 0, 0, 0, -1, 0, 0, 0, 0}); err == nil {
		t.Fatal("a 10-integer reply was accepted")
	}
	if _, err := ParseHealthReply(rp.CallOpProbe, []int64{-1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 5}); err == nil {
		t.Fatal("granted 2 was accepted")
	}
}
