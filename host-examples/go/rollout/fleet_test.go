package rollout

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testredis"
	"example.invalid/webhook-retry-policy/host-examples/go/redisbudget"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// A test fleet: a redis-server, a signing key the followers trust, and a
// publisher's writes (the real publisher is `retry-policy publish`; this
// one writes the same keys so every refusal can be staged).
type fleet struct {
	t       *testing.T
	port    int
	admin   *redis.Client
	priv    ed25519.PrivateKey
	trusted *Trusted
	epoch   uint64
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	port, admin := testredis.Start(t, nil, nil)
	f := &fleet{t: t, port: port, admin: admin}
	f.priv, f.trusted = signingKey(t)
	return f
}

// signingKey is a fresh Ed25519 key and the Trusted set of its public half,
// read back through its PEM as a trust file is.
func signingKey(t *testing.T) (ed25519.PrivateKey, *Trusted) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := ParseTrust(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	return priv, trusted
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func sign(priv ed25519.PrivateKey, sha string) string {
	return base64.StdEncoding.EncodeToString(ed25519.Sign(priv, SignedMessage(sha)))
}

// store writes raw's artifact hash under its own sha256, signed, and
// returns that sha256; fields overrides or (with "") deletes fields.
func (f *fleet) store(raw []byte, fields map[string]string) string {
	f.t.Helper()
	sha := digest(raw)
	h := map[string]any{"bytes": raw, "signature": sign(f.priv, sha), "key_id": KeyID(f.priv.Public().(ed25519.PublicKey)),
		"abi": rp.ABI, "document_version": "", "size": strconv.Itoa(len(raw)), "published_at_ms": "1"}
	for k, v := range fields {
		h[k] = v
	}
	for k, v := range h {
		if v == "" {
			delete(h, k)
		}
	}
	if err := f.admin.HSet(context.Background(), ArtifactKey(sha), h).Err(); err != nil {
		f.t.Fatal(err)
	}
	return sha
}

// publish writes the next epoch's record.
func (f *fleet) publish(stable string, canary *Canary) {
	f.t.Helper()
	f.epoch++
	f.setRecord(string(Record{V: 1, Epoch: f.epoch, Stable: stable, Canary: canary}.Canonical()))
}

func (f *fleet) setRecord(text string) {
	f.t.Helper()
	if err := f.admin.Set(context.Background(), StateKey, text, 0).Err(); err != nil {
		f.t.Fatal(err)
	}
}

// status is the status record replica id wrote at its last tick.
func (f *fleet) status(id string) Status {
	f.t.Helper()
	text, err := f.admin.HGet(context.Background(), ReplicasKey, id).Result()
	if err != nil {
		f.t.Fatalf("the status of %s: %v", id, err)
	}
	var s Status
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		f.t.Fatal(err)
	}
	return s
}

// calls is how many times Redis ran command (INFO commandstats).
func (f *fleet) calls(command string) int {
	f.t.Helper()
	info, err := f.admin.Info(context.Background(), "commandstats").Result()
	if err != nil {
		f.t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(line, "cmdstat_"+command+":calls="); ok {
			n, _ := strconv.Atoi(strings.SplitN(rest, ",", 2)[0])
			return n
		}
	}
	return 0
}

// client is a follower's connection to port, as the replica builds it.
func client(t *testing.T, port int) *redis.Client {
	o := redisbudget.ClientOptions("127.0.0.1:"+strconv.Itoa(port), 250*time.Millisecond)
	o.DialerRetries, o.DialerRetryTimeout = 1, time.Millisecond
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// engine is an Engine on the embedded artifact.
func engine(t *testing.T) *rp.Engine {
	t.Helper()
	e, err := rp.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

// variant is a valid artifact other than the embedded one (a custom section added).
func variant(name string) []byte {
	return rp.AppendCustomSection(rp.EmbeddedArtifact(), "test:rollout", []byte(name))
}

// reports collects a follower's reported events.
type reports struct {
	mu     sync.Mutex
	events []Event
}

func (r *reports) add(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *reports) count(k Kind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.events {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

// follower follows fleet f's Redis as id on e.
func (f *fleet) follower(id string, e Runner, r *reports) *Follower {
	f.t.Helper()
	fl, err := NewFollower(Config{Client: client(f.t, f.port), Trusted: f.trusted, Engine: e, ReplicaID: id, Report: r.add})
	if err != nil {
		f.t.Fatal(err)
	}
	return fl
}
