package redisbudget

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

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

type storeCall struct {
	Action string   `json:"action"`
	CallID uint64   `json:"call_id"`
	Key    string   `json:"key"`
	Argv   []string `json:"argv"`
}

type answer struct {
	Outputs []storeCall `json:"outputs"`
	Errors  []struct {
		Error string `json:"error"`
	} `json:"errors"`
}

// engineCall opens a delivery engine (no memory store), admits one event
// at now and answers its first attempt with a 503: the record_reserve
// store call the engine then asks for.
func engineCall(t *testing.T, now uint64) (*rp.DeliveryEngine, storeCall) {
	t.Helper()
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	d, err := e.OpenDeliveryEngine(ctx, map[string]any{"document": map[string]any{"version": "t", "classes": map[string]any{
		"storm": map[string]any{"window_ms": 900000, "hard_cap": 16,
			"backoff": map[string]any{"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"},
			"budget":  map[string]any{"ratio": 0.1, "window_ms": 60000, "min_sample": 3, "sliding": false}}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close(ctx) })
	var a answer
	if err := d.Feed(ctx, []any{
		map[string]any{"op": "admit", "now_ms": now, "event_id": "evt_1", "endpoint_id": "ep_1", "target": "https://x.example/", "class": "storm"},
		map[string]any{"op": "result", "now_ms": now, "event_id": "evt_1", "attempt": 1, "status": 503},
	}, &a); err != nil || len(a.Errors) > 0 {
		t.Fatalf("%v %+v", err, a.Errors)
	}
	for _, o := range a.Outputs {
		if o.Action == "store_call" {
			return d, o
		}
	}
	t.Fatalf("no store call: %+v", a.Outputs)
	return nil, storeCall{}
}

func TestAnEnginesStoreCallIsOneEvalshaAndNoscriptResendsOnlyThatCommandAsEval(t *testing.T) {
	rdb := startRedis(t)
	cmds := &commands{n: map[string]int{}}
	rdb.AddHook(cmds)
	ctx := context.Background()
	now := uint64(time.Now().UnixMilli())
	d, call := engineCall(t, now)
	s := New(rdb)
	reply, err := s.Call(ctx, call.Key, call.Argv)
	if err != nil || len(reply) != 5 {
		t.Fatalf("record_reserve: %v %v", reply, err)
	}
	if cmds.n["evalsha"] != 1 || cmds.n["eval"] != 1 || len(cmds.n) != 2 {
		t.Fatalf("the first call on an empty script cache: want EVALSHA -> NOSCRIPT -> one EVAL, got %v", cmds.n)
	}
	bucket := strconv.FormatUint(now/60000, 10)
	if total, _ := rdb.HGet(ctx, call.Key, "t:"+bucket).Int64(); total != reply[1]+reply[0] {
		t.Fatalf("Redis holds total %d, the reply says %d counted and %d reserved: the NOSCRIPT resend counted twice", total, reply[1], reply[0])
	}
	var a answer
	if err := d.Feed(ctx, []any{map[string]any{"op": "store", "now_ms": now, "call_id": call.CallID, "reply": reply}}, &a); err != nil || len(a.Errors) > 0 {
		t.Fatalf("the engine refused the script's reply: %v %+v", err, a.Errors)
	}
	if err := s.LoadScript(ctx); err != nil {
		t.Fatal(err)
	}
	cmds.n = map[string]int{}
	if _, err := s.Call(ctx, call.Key, call.Argv); err != nil || cmds.n["evalsha"] != 1 || len(cmds.n) != 1 {
		t.Fatalf("after LoadScript: want one EVALSHA and no EVAL, got %v %v", cmds.n, err)
	}
}

func TestARedisThatHangsFailsTheCallWithinTheTimeout(t *testing.T) {
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
	_, call := engineCall(t, uint64(time.Now().UnixMilli()))
	start := time.Now()
	if _, err := New(rdb, WithTimeout(100*time.Millisecond)).Call(context.Background(), call.Key, call.Argv); err == nil {
		t.Fatal("a hung Redis answered")
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the store call took %v with a 100 ms timeout", took)
	}
}

func TestAClockSkewedPastAQuarterWindowIsAnErrorReply(t *testing.T) {
	rdb := startRedis(t)
	_, call := engineCall(t, uint64(time.Now().UnixMilli())+60000/4+2000)
	if _, err := New(rdb).Call(context.Background(), call.Key, call.Argv); err == nil {
		t.Fatal("the script took a call 17 s in the future")
	}
}

func TestAnUnreachableRedisFailsTheCall(t *testing.T) {
	rdb := redis.NewClient(ClientOptions("127.0.0.1:1", 100*time.Millisecond))
	defer rdb.Close()
	_, call := engineCall(t, uint64(time.Now().UnixMilli()))
	if _, err := New(rdb).Call(context.Background(), call.Key, call.Argv); err == nil {
		t.Fatal("an unreachable Redis answered")
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
