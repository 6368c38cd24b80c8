package rollout_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testrollout"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// fakeStore answers the follower's commands from maps, in the client's
// hooks (nothing is dialled): the driver loop without a redis-server, its
// calls recorded and any command made to fail.
type fakeStore struct {
	mu      sync.Mutex
	strings map[string]string
	hashes  map[string]map[string]string
	fail    map[string]error // by command name, until cleared
	calls   []string
}

func newFakeStore(t *testing.T) (*fakeStore, *redis.Client) {
	s := &fakeStore{strings: map[string]string{}, hashes: map[string]map[string]string{}, fail: map[string]error{}}
	c := redis.NewClient(&redis.Options{Addr: "fake.invalid:6379", ContextTimeoutEnabled: true})
	c.AddHook(s)
	t.Cleanup(func() { _ = c.Close() })
	return s, c
}

func (s *fakeStore) DialHook(redis.DialHook) redis.DialHook {
	return func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("the fake store dials nothing")
	}
}

func (s *fakeStore) ProcessHook(redis.ProcessHook) redis.ProcessHook {
	return func(_ context.Context, cmd redis.Cmder) error { return s.process(cmd) }
}

func (s *fakeStore) ProcessPipelineHook(redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(_ context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			if err := s.process(cmd); err != nil {
				return err
			}
		}
		return nil
	}
}

func (s *fakeStore) process(cmd redis.Cmder) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, args := cmd.Name(), cmd.Args()
	s.calls = append(s.calls, name)
	if err := s.fail[name]; err != nil {
		cmd.SetErr(err)
		return err
	}
	arg := func(i int) string { return fmt.Sprint(args[i]) }
	switch name {
	case "hset":
		if s.hashes[arg(1)] == nil {
			s.hashes[arg(1)] = map[string]string{}
		}
		s.hashes[arg(1)][arg(2)] = arg(3)
		cmd.(*redis.IntCmd).SetVal(1)
	case "getrange":
		v := s.strings[arg(1)]
		var end int
		fmt.Sscan(arg(3), &end)
		cmd.(*redis.StringCmd).SetVal(v[:min(len(v), end+1)])
	case "hstrlen":
		cmd.(*redis.IntCmd).SetVal(int64(len(s.hashes[arg(1)][arg(2)])))
	case "hmget":
		var vals []any
		for i := 2; i < len(args); i++ {
			if v, ok := s.hashes[arg(1)][arg(i)]; ok {
				vals = append(vals, v)
			} else {
				vals = append(vals, nil)
			}
		}
		cmd.(*redis.SliceCmd).SetVal(vals)
	default:
		err := fmt.Errorf("the fake store has no %s", name)
		cmd.SetErr(err)
		return err
	}
	return nil
}

// took returns the commands made since the last call, joined by spaces.
func (s *fakeStore) took() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := strings.Join(s.calls, " ")
	s.calls = nil
	return out
}

// publish stores raw signed by priv and a record naming it (epoch).
func (s *fakeStore) publish(priv ed25519.PrivateKey, raw []byte, epoch uint64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha := testrollout.Digest(raw)
	s.hashes[testrollout.ArtifactKey(sha)] = map[string]string{"bytes": string(raw), "signature": testrollout.Sign(priv, sha),
		"key_id": testrollout.KeyID(priv.Public().(ed25519.PublicKey))}
	s.strings["retry-policy:{rollout}:state"] = testrollout.Record(epoch, sha, nil)
	return sha
}

func (s *fakeStore) status(t *testing.T, id string) testrollout.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st testrollout.Status
	if err := json.Unmarshal([]byte(s.hashes["retry-policy:{rollout}:replicas"][id]), &st); err != nil {
		t.Fatalf("the status of %s: %v", id, err)
	}
	return st
}

func TestTheDriverMakesEachCallTheFollowerNamesAndFeedsBackItsAnswer(t *testing.T) {
	store, client := newFakeStore(t)
	priv, trust := testrollout.SigningKey(t)
	e := engine(t)
	var r reports
	fl := newFollower(t, client, trust, "go-a", e, &r)
	if ev := fl.Tick(ctx); ev.Err != nil || ev.Swapped || store.took() != "hset getrange" {
		t.Fatalf("nothing published: %+v", ev)
	}
	fl.Finished(false)
	fl.Finished(true)
	sha := store.publish(priv, testrollout.Variant("fake v2"), 1)
	if ev := fl.Tick(ctx); ev.Err != nil || !ev.Swapped || ev.New.SHA256 != sha || e.Info().Source != "redis" {
		t.Fatalf("a publish: %+v", ev)
	}
	if got := store.took(); got != "hset getrange hstrlen hmget" {
		t.Fatalf("the swap's commands: %s", got)
	}
	if s := store.status(t, "go-a"); s.Events != 2 || s.DeadLetters != 1 || s.Epoch != 0 {
		t.Fatalf("the status before the swap: %+v", s)
	}
	fl.Finished(false)
	if ev := fl.Tick(ctx); ev.Err != nil || ev.Swapped || store.took() != "hset getrange" {
		t.Fatalf("a settled epoch: %+v", ev)
	}
	if s := store.status(t, "go-a"); s.ArtifactSHA256 != sha || s.Epoch != 1 || s.Events != 1 || s.DeadLetters != 0 {
		t.Fatalf("the status after the swap (its counts since the swap): %+v", s)
	}
}

func TestAFieldMissingFromTheArtifactsHashIsPassedAsNullAndRefused(t *testing.T) {
	store, client := newFakeStore(t)
	priv, trust := testrollout.SigningKey(t)
	e := engine(t)
	var r reports
	fl := newFollower(t, client, trust, "go-a", e, &r)
	sha := store.publish(priv, testrollout.Variant("no key id"), 1)
	delete(store.hashes[testrollout.ArtifactKey(sha)], "key_id")
	if ev := fl.Tick(ctx); ev.Refused == nil || ev.Refused.Code != "rollout_artifact_missing" || ev.Refused.SHA256 != sha || e.Info().SHA256 == sha {
		t.Fatalf("%+v", ev)
	}
}

func TestAStoreFailureMidTickIsLoggedAndTheEpochRetriedNextTick(t *testing.T) {
	store, client := newFakeStore(t)
	priv, trust := testrollout.SigningKey(t)
	e := engine(t)
	var r reports
	fl := newFollower(t, client, trust, "go-a", e, &r)
	running := e.Info().SHA256
	sha := store.publish(priv, testrollout.Variant("fake v2"), 1)
	store.fail["hmget"] = errors.New("LOADING the store is loading")
	for range 2 { // one run of failures, logged once, though each tick's GETRANGE answers
		if ev := fl.Tick(ctx); ev.Swapped || ev.Err != nil || e.Info().SHA256 != running {
			t.Fatalf("%+v", ev)
		}
	}
	if r.lines(reachableLine) != 0 || r.lines(unreachableLine+running+", retrying every tick: HMGET "+testrollout.ArtifactKey(sha)+": LOADING") != 1 {
		t.Fatalf("the failure's line: %+v", r.events)
	}
	if s := store.status(t, "go-a"); s.Epoch != 0 || s.Refusal != nil {
		t.Fatalf("a store failure settles nothing: %+v", s)
	}
	delete(store.fail, "hmget")
	if ev := fl.Tick(ctx); !ev.Swapped || len(ev.Log) != 1 || ev.Log[0] != reachableLine || store.took() != "hset getrange hstrlen hmget hset getrange hstrlen hmget hset getrange hstrlen hmget" {
		t.Fatalf("the store back: %+v", ev)
	}
}

// cancelling ends the tick's context at its first load, swapping
// nothing, as a run that ends while it loads; later loads swap.
type cancelling struct {
	*rp.Engine
	cancel context.CancelFunc
	once   *sync.Once
}

func (c cancelling) SwapArtifactFrom(ctx context.Context, raw []byte, source, sha string) (info rp.ArtifactInfo, err error) {
	first := false
	c.once.Do(func() { first = true })
	if first {
		c.cancel()
		return c.Info(), ctx.Err()
	}
	return c.Engine.SwapArtifactFrom(ctx, raw, source, sha)
}

func TestARunEndingMidLoadNeverAnswersAndTheNextTickStartsAfresh(t *testing.T) {
	store, client := newFakeStore(t)
	priv, trust := testrollout.SigningKey(t)
	e := engine(t)
	var r reports
	tickCtx, cancel := context.WithCancel(ctx)
	fl := newFollower(t, client, trust, "go-a", cancelling{e, cancel, &sync.Once{}}, &r)
	sha := store.publish(priv, testrollout.Variant("fake v2"), 1)
	if ev := fl.Tick(tickCtx); !errors.Is(ev.Err, context.Canceled) || ev.Swapped || len(r.events) != 0 {
		t.Fatalf("a tick whose run ends mid-load: %+v, reported %+v", ev, r.events)
	}
	// the follower waits for `loaded`; a tick abandons that, its epoch unsettled
	if ev := fl.Tick(ctx); !ev.Swapped || ev.Err != nil || e.Info().SHA256 != sha ||
		store.took() != "hset getrange hstrlen hmget hset getrange hstrlen hmget" {
		t.Fatalf("the next tick: %+v", ev)
	}
}

func TestASwapMadeAnotherWayRestartsTheStatusSinceAndCountsOnceTheFollowerIsTold(t *testing.T) {
	store, client := newFakeStore(t)
	_, trust := testrollout.SigningKey(t)
	e := engine(t)
	var r reports
	fl := newFollower(t, client, trust, "go-a", e, &r)
	fl.Finished(false)
	fl.Finished(true)
	if ev := fl.Tick(ctx); ev.Err != nil {
		t.Fatalf("%+v", ev)
	}
	before := store.status(t, "go-a")
	time.Sleep(5 * time.Millisecond) // since_ms is in ms: the swap's must differ
	if _, err := e.SwapArtifact(ctx, testrollout.Variant("a file swap"), ""); err != nil {
		t.Fatal(err)
	}
	if err := fl.ArtifactSwapped(ctx); err != nil {
		t.Fatal(err)
	}
	fl.Finished(false)
	if ev := fl.Tick(ctx); ev.Err != nil {
		t.Fatalf("%+v", ev)
	}
	after := store.status(t, "go-a")
	if before.Events != 2 || after.Events != 1 || after.DeadLetters != 0 || after.SinceMs <= before.SinceMs {
		t.Fatalf("before %+v, after %+v", before, after)
	}
}
