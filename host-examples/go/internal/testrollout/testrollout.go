// Package testrollout stages a fleet rollout for the Go host's tests: a
// redis-server, a signing key the followers trust, and a publisher's
// writes of docs/rollout.md's keys (the real publisher is `retry-policy
// publish`; this one can also write what it would refuse, so every
// refusal can be staged). Nothing here is used outside tests.
package testrollout

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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testredis"
	"example.invalid/webhook-retry-policy/host-examples/go/redisbudget"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

// Fleet is one test's store and publisher.
type Fleet struct {
	T        *testing.T
	Port     int
	Admin    *redis.Client
	Priv     ed25519.PrivateKey
	TrustPEM []byte // the public half, as `openssl pkey -pubout` writes it
	Epoch    uint64 // the last published epoch
}

// New starts a redis-server and makes a signing key.
func New(t *testing.T) *Fleet {
	t.Helper()
	port, admin := testredis.Start(t, nil, nil)
	return On(t, port, admin)
}

// On is New on a store already running (TLS, an ACL, a cluster): admin
// writes the keys, port is where replicas connect.
func On(t *testing.T, port int, admin *redis.Client) *Fleet {
	t.Helper()
	f := &Fleet{T: t, Port: port, Admin: admin}
	f.Priv, f.TrustPEM = SigningKey(t)
	return f
}

// SigningKey is a fresh Ed25519 key and its public half's PEM.
func SigningKey(t testing.TB) (ed25519.PrivateKey, []byte) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return priv, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// TrustFile writes the trust PEM to a file and returns its path.
func (f *Fleet) TrustFile() string {
	path := filepath.Join(f.T.TempDir(), "policy-team.pub")
	if err := os.WriteFile(path, f.TrustPEM, 0o644); err != nil {
		f.T.Fatal(err)
	}
	return path
}

// URL is the store's redis:// URL.
func (f *Fleet) URL() string { return "redis://127.0.0.1:" + strconv.Itoa(f.Port) }

// Digest is b's sha256, lowercase hex.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Sign is priv's signature of the artifact whose sha256 is sha, base64
// (docs/rollout.md "The signature", as `retry-policy publish` signs).
func Sign(priv ed25519.PrivateKey, sha string) string {
	return base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte("webhook-retry-policy artifact v1\n"+sha)))
}

// KeyID is a public key's id: the first 16 hex digits of its sha256.
func KeyID(pub ed25519.PublicKey) string { return Digest(pub)[:16] }

// ArtifactKey is the hash holding the artifact whose sha256 is sha.
func ArtifactKey(sha string) string { return "retry-policy:{rollout}:artifact:" + sha }

// Store writes raw's artifact hash under its own sha256, signed with the
// fleet's key, and returns that sha256; fields override fields (a value
// "" deletes the field).
func (f *Fleet) Store(raw []byte, fields map[string]string) string {
	f.T.Helper()
	sha := Digest(raw)
	h := map[string]any{"bytes": raw, "signature": Sign(f.Priv, sha), "key_id": KeyID(f.Priv.Public().(ed25519.PublicKey)),
		"abi": rp.ABI, "document_version": "", "size": strconv.Itoa(len(raw)), "published_at_ms": "1"}
	for k, v := range fields {
		h[k] = v
		if v == "" {
			delete(h, k)
		}
	}
	if err := f.Admin.HSet(context.Background(), ArtifactKey(sha), h).Err(); err != nil {
		f.T.Fatal(err)
	}
	return sha
}

// Canary is a record's canary: the artifact run by the replicas whose
// bucket is below Percent.
type Canary struct {
	SHA256  string `json:"sha256"`
	Percent int    `json:"percent"`
}

// Publish writes the next epoch's record.
func (f *Fleet) Publish(stable string, canary *Canary) {
	f.T.Helper()
	f.Epoch++
	f.SetRecord(Record(f.Epoch, stable, canary))
}

// Record is the canonical text of a record with no previous artifacts.
func Record(epoch uint64, stable string, canary *Canary) string {
	c, _ := json.Marshal(canary) // null for nil
	return fmt.Sprintf(`{"v":1,"epoch":%d,"stable":%q,"canary":%s,"previous":[]}`, epoch, stable, c)
}

// Status is a replica's status record (docs/rollout.md).
type Status struct {
	ReplicaID       string   `json:"replica_id"`
	Language        string   `json:"language"`
	Host            string   `json:"host"`
	PID             int      `json:"pid"`
	ArtifactSHA256  string   `json:"artifact_sha256"`
	DocumentVersion string   `json:"document_version"`
	SinceMs         int64    `json:"since_ms"`
	Events          uint64   `json:"events"`
	DeadLetters     uint64   `json:"dead_letters"`
	SeenMs          int64    `json:"seen_ms"`
	Epoch           uint64   `json:"epoch"`
	Refusal         *Refusal `json:"refusal"`
}

// Refusal is a status record's refusal.
type Refusal struct {
	SHA256  *string `json:"sha256"`
	Code    string  `json:"code"`
	Message string  `json:"message"`
	AtMs    int64   `json:"at_ms"`
}

// SetRecord writes text as the record.
func (f *Fleet) SetRecord(text string) {
	f.T.Helper()
	if err := f.Admin.Set(context.Background(), rollout.StateKey, text, 0).Err(); err != nil {
		f.T.Fatal(err)
	}
}

// Status is the status record replica id wrote at its last tick (ok
// false: none yet).
func (f *Fleet) Status(id string) (s Status, ok bool) {
	f.T.Helper()
	text, err := f.Admin.HGet(context.Background(), rollout.ReplicasKey, id).Result()
	if err == redis.Nil {
		return s, false
	}
	if err != nil {
		f.T.Fatalf("the status of %s: %v", id, err)
	}
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		f.T.Fatal(err)
	}
	return s, true
}

// Calls is how many times Redis ran command (INFO commandstats).
func (f *Fleet) Calls(command string) int {
	f.T.Helper()
	info, err := f.Admin.Info(context.Background(), "commandstats").Result()
	if err != nil {
		f.T.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(line, "cmdstat_"+command+":calls="); ok {
			n, _ := strconv.Atoi(strings.SplitN(rest, ",", 2)[0])
			return n
		}
	}
	return 0
}

// Client is a connection to port as the replica builds one.
func Client(t *testing.T, port int) *redis.Client {
	o := redisbudget.ClientOptions("127.0.0.1:"+strconv.Itoa(port), 250*time.Millisecond)
	o.DialerRetries, o.DialerRetryTimeout = 1, time.Millisecond
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Variant is a valid artifact other than the embedded one (a custom
// section added), one per name.
func Variant(name string) []byte {
	return rp.AppendCustomSection(rp.EmbeddedArtifact(), "test:rollout", []byte(name))
}
