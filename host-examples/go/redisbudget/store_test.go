package redisbudget

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/vectors"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var policy = rp.Policy{
	Backoff:  rp.Backoff{BaseMs: 2000, Factor: 2, CapMs: 300000, Jitter: rp.JitterFull},
	WindowMs: 900000, HardCap: 16,
	Budget: rp.Budget{Ratio: 0.1, WindowMs: 60000, MinSample: 3, Sliding: false},
}

func engine(t *testing.T) *rp.Engine {
	t.Helper()
	e, err := rp.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

func nowMs() uint64 { return uint64(time.Now().UnixMilli()) }

func state(event string, attempt uint32, first uint64) rp.DeliveryState {
	return rp.DeliveryState{EventID: event, EndpointID: "ep_1", Attempt: attempt, MaxAttempts: 13, FirstAttemptedAtMs: first}
}

// commands counts the commands a client sends, by name.
type commands struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *commands) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *commands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.mu.Lock()
		c.n[cmd.Name()]++
		c.mu.Unlock()
		return next(ctx, cmd)
	}
}
func (c *commands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func TestTheScriptAgreesWithTheComponentOnEveryBudgetVector(t *testing.T) {
	rdb := startRedis(t)
	ctx := context.Background()
	dir := os.Getenv("RETRY_POLICY_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "tests", "vectors")
	}
	files, err := vectors.LoadDir(dir)
	if err != nil {
		t.Skipf("no vectors: %v", err)
	}
	e := engine(t)
	s, n := New(rdb, e, WithoutSkewCheck()), 0
	for _, f := range files {
		for _, c := range f.Cases {
			if c.Op != "budget" {
				continue
			}
			var want struct {
				Allows *bool `json:"allows_retry"`
			}
			in, err := vectors.DecodeBudget(c.Input)
			if json.Unmarshal(c.Expect, &want) != nil || want.Allows == nil || err != nil {
				continue // refused inputs are the component's business
			}
			r := rp.StoreRequest{Op: rp.StoreOpReserve, EndpointID: "ep_" + strconv.Itoa(n), WindowMs: in.Budget.WindowMs, Bucket: in.NowMs / in.Budget.WindowMs}
			key, _ := e.StoreKey(ctx, r)
			cur := strconv.FormatUint(r.Bucket, 10)
			rdb.HSet(ctx, key, "t:"+cur, in.Counts.Current.Total, "r:"+cur, in.Counts.Current.Retries)
			if r.Bucket > 0 {
				prev := strconv.FormatUint(r.Bucket-1, 10)
				rdb.HSet(ctx, key, "t:"+prev, in.Counts.Previous.Total, "r:"+prev, in.Counts.Previous.Retries)
			} else if in.Counts.Previous != (rp.BucketCounts{}) {
				continue // no bucket before bucket 0 to seed
			}
			got, err := s.Call(ctx, r, in.Budget, in.NowMs)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if got.Reserved != *want.Allows || got.Counts != in.Counts {
				t.Errorf("%s: the script reserved=%v on %+v, the contract says %v on %+v", c.Name, got.Reserved, got.Counts, *want.Allows, in.Counts)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no budget vectors")
	}
}

func TestEachStoreRequestIsOneEvalshaAndNoscriptResendsOnlyThatCommandAsEval(t *testing.T) {
	rdb := startRedis(t)
	cmds := &commands{n: map[string]int{}}
	rdb.AddHook(cmds)
	ctx := context.Background()
	e := engine(t)
	s := New(rdb, e)
	now := nowMs()
	res, err := e.Step(ctx, s, policy, state("evt_1", 1, now), rp.ResponseOutcome(503), now)
	if err != nil || res.Decision.Retry == nil || res.Store.Op != rp.StoreOpRecordReserve {
		t.Fatalf("a first attempt's 503: want a retry reserved by record_reserve, got %+v %v", res, err)
	}
	if cmds.n["evalsha"] != 1 || cmds.n["eval"] != 1 || len(cmds.n) != 2 {
		t.Fatalf("the first call on an empty script cache: want EVALSHA -> NOSCRIPT -> one EVAL, got %v", cmds.n)
	}
	cmds.n = map[string]int{}
	if _, err := e.Step(ctx, s, policy, state("evt_2", 1, now), rp.ResponseOutcome(200), now); err != nil {
		t.Fatal(err)
	}
	if cmds.n["evalsha"] != 1 || len(cmds.n) != 1 {
		t.Fatalf("a delivered first attempt: want one EVALSHA (record), got %v", cmds.n)
	}
	rdb.ScriptFlush(ctx)
	if err := s.LoadScript(ctx); err != nil {
		t.Fatal(err)
	}
	cmds.n = map[string]int{}
	if _, err := e.Step(ctx, s, policy, state("evt_4", 1, now), rp.ResponseOutcome(200), now); err != nil || cmds.n["evalsha"] != 1 || cmds.n["eval"] != 0 {
		t.Fatalf("after LoadScript: want one EVALSHA and no EVAL, got %v %v", cmds.n, err)
	}
	rdb.ScriptFlush(ctx)
	cmds.n = map[string]int{}
	if _, err := e.Step(ctx, s, policy, state("evt_3", 2, now), rp.ResponseOutcome(503), now); err != nil {
		t.Fatal(err)
	}
	if cmds.n["evalsha"] != 1 || cmds.n["eval"] != 1 || len(cmds.n) != 2 {
		t.Fatalf("after SCRIPT FLUSH: want the EVALSHA, then the same command as EVAL, got %v", cmds.n)
	}
	key, _ := e.StoreKey(ctx, *res.Store)
	bucket := strconv.FormatUint(res.Store.Bucket, 10)
	if total, _ := rdb.HGet(ctx, key, "t:"+bucket).Int(); total != 4 {
		t.Fatalf("three first attempts and one retry: want total 4 (nothing counted twice), got %d", total)
	}
}

func TestARedisThatHangsFailsTheRetryClosedWithinTheTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // accept and never answer: a SIGSTOPped Redis
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	rdb := redis.NewClient(ClientOptions(l.Addr().String(), 100*time.Millisecond))
	defer rdb.Close()
	e := engine(t)
	s := New(rdb, e, WithTimeout(100*time.Millisecond))
	now := nowMs()
	start := time.Now()
	res, err := e.Step(context.Background(), s, policy, state("evt_1", 2, now), rp.ResponseOutcome(503), now)
	if err != nil || res.Decision.Stop == nil || res.Decision.Stop.Reason != rp.StopReasonBudgetUnavailable || res.StoreErr == nil {
		t.Fatalf("want budget_unavailable, got %+v %v", res, err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the store call took %v with a 100 ms timeout", took)
	}
	// a first attempt that was delivered is still delivered
	res, err = e.Step(context.Background(), s, policy, state("evt_2", 1, now), rp.ResponseOutcome(200), now)
	if err != nil || res.Decision.Stop == nil || res.Decision.Stop.Reason != rp.StopReasonDelivered {
		t.Fatalf("want delivered, got %+v %v", res, err)
	}
}

func TestAClockSkewedPastAQuarterWindowIsAStoreErrorThatFailsClosed(t *testing.T) {
	rdb := startRedis(t)
	e := engine(t)
	s := New(rdb, e)
	skewed := nowMs() + policy.Budget.WindowMs/4 + 2000
	res, err := e.Step(context.Background(), s, policy, state("evt_1", 2, skewed), rp.ResponseOutcome(503), skewed)
	if err != nil || res.Decision.Stop == nil || res.Decision.Stop.Reason != rp.StopReasonBudgetUnavailable || res.StoreErr == nil {
		t.Fatalf("want budget_unavailable with the skew error, got %+v %v", res, err)
	}
	if !strings.Contains(res.StoreErr.Error(), "skew") {
		t.Logf("store error: %v", res.StoreErr)
	}
}

func TestReplicasRacingOnOneEndpointNeverExceedTheRatio(t *testing.T) {
	rdb := startRedis(t)
	e := engine(t)
	p := policy
	p.Budget.MinSample = 0
	now := nowMs()
	var retries, attempts atomic.Int64
	var wg sync.WaitGroup
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New(rdb, e) // one store per replica, one Redis
			for i := 0; i < 50; i++ {
				res, err := e.Step(context.Background(), s, p, state("evt_"+strconv.Itoa(r)+"_"+strconv.Itoa(i), 1, now), rp.ResponseOutcome(503), now)
				if err != nil || res.BudgetDisagreement {
					t.Errorf("%+v %v", res, err)
					return
				}
				attempts.Add(1)
				if res.Decision.Retry != nil {
					retries.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	total := attempts.Load() + retries.Load()
	// every reservation kept (retries+1) <= ratio*(total+1) on the counts before it
	if r := retries.Load(); r == 0 || float64(r) > p.Budget.Ratio*float64(total)+1e-9 {
		t.Fatalf("%d retries reserved for %d attempts in all: the ratio is %v", r, total, p.Budget.Ratio)
	}
}

func TestAnUnreachableRedisFailsTheBudgetClosed(t *testing.T) {
	rdb := redis.NewClient(ClientOptions("127.0.0.1:1", 100*time.Millisecond))
	defer rdb.Close()
	e := engine(t)
	now := nowMs()
	d, err := e.Step(context.Background(), New(rdb, e), policy, state("evt_1", 2, now), rp.ResponseOutcome(503), now)
	if err != nil || d.Decision.Stop == nil || d.Decision.Stop.Reason != rp.StopReasonBudgetUnavailable {
		t.Fatalf("want budget_unavailable, got %+v %v", d, err)
	}
	if _, err := CheckEviction(context.Background(), rdb); err == nil {
		t.Fatal("CheckEviction on an unreachable Redis must report an error")
	}
}

func TestTheStoreChecksTheEvictionPolicy(t *testing.T) {
	rdb := startRedis(t)
	if p, err := CheckEviction(context.Background(), rdb); err != nil || p != "noeviction" {
		t.Fatalf("a default redis-server: %q %v", p, err)
	}
	rdb.ConfigSet(context.Background(), "maxmemory-policy", "volatile-lru")
	if _, err := CheckEviction(context.Background(), rdb); err == nil {
		t.Fatal("volatile-lru must be reported")
	}
}

func TestDecideThroughTheImportsMakesOneEvalshaOnTheBlockingRedisStore(t *testing.T) {
	rdb := startRedis(t)
	ctx := context.Background()
	var store *Store
	e, err := rp.New(ctx, rp.WithBudgetStoreFor(func(e *rp.Engine) rp.BudgetStore {
		store = New(rdb, e)
		return store
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	if err := store.LoadScript(ctx); err != nil {
		t.Fatal(err)
	}
	cmds := &commands{n: map[string]int{}}
	rdb.AddHook(cmds)
	now := nowMs()
	d, err := e.Decide(ctx, policy, state("evt_imports", 1, now), rp.ResponseOutcome(503))
	if err != nil || d.Retry == nil {
		t.Fatalf("a first attempt's 503 through the imports: want a retry, got %+v %v", d, err)
	}
	if cmds.n["evalsha"] != 1 || len(cmds.n) != 1 {
		t.Fatalf("want ONE EVALSHA (record_reserve) from the store import, got %v", cmds.n)
	}
	key, err := e.StoreKey(ctx, rp.StoreRequest{Op: rp.StoreOpRecordReserve, EndpointID: "ep_1", WindowMs: policy.Budget.WindowMs, Bucket: now / policy.Budget.WindowMs})
	if err != nil {
		t.Fatal(err)
	}
	bucket := strconv.FormatUint(now/policy.Budget.WindowMs, 10)
	total, _ := rdb.HGet(ctx, key, "t:"+bucket).Int()
	retries, _ := rdb.HGet(ctx, key, "r:"+bucket).Int()
	if total != 2 || retries != 1 {
		t.Fatalf("Redis holds total %d, retries %d: want the first attempt and the reserved retry (2, 1), each counted once", total, retries)
	}
}
