package driver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/redisbudget"
)

// redisBudget is the fleet's Redis (--redis, --redis-cluster): the
// engine's store calls go there, one EVALSHA of fleet/budget.lua each
// (redisbudget, which counts the round trips).
type redisBudget struct {
	client redis.UniversalClient // the rollout follower's connection too
	store  *redisbudget.Store
}

// newRedisBudget connects to a standalone Redis (opts, --redis as
// redis.ParseURL read it) or a cluster (u, --redis-cluster's seed node);
// every store call is bounded by timeout. A user in the URL is an ACL user
// (AUTH USER PASSWORD, once per connection); rediss:// speaks TLS,
// verified against roots (the platform's trust store plus --ca-file; nil:
// the platform's alone) and the URL's host name.
func newRedisBudget(opts *redis.Options, u *url.URL, timeout time.Duration, roots *x509.CertPool) *redisBudget {
	redis.SetLogger(quietLogger{}) // failures are counted and reported once by the replica
	var client redis.UniversalClient
	if u != nil {
		password, _ := u.User.Password()
		var tlsConfig *tls.Config
		if u.Scheme == "rediss" {
			tlsConfig = &tls.Config{ServerName: u.Hostname(), RootCAs: roots, MinVersion: tls.VersionTLS12}
		}
		client = redis.NewClusterClient(&redis.ClusterOptions{
			Addrs: []string{u.Host}, Username: u.User.Username(), Password: password, DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout, PoolTimeout: timeout,
			ContextTimeoutEnabled: true, MaxRetries: -1, DisableIdentity: true, Protocol: 2, TLSConfig: tlsConfig,
		})
	} else {
		o := redisbudget.ClientOptions(opts.Addr, timeout)
		o.DB, o.Username, o.Password, o.TLSConfig = opts.DB, opts.Username, opts.Password, opts.TLSConfig
		if o.TLSConfig != nil { // rediss://: ParseURL named the server; trust --ca-file too
			o.TLSConfig.RootCAs = roots
		}
		// fail fast while Redis is down; the pool dials again on later calls
		o.DialerRetries, o.DialerRetryTimeout = 1, time.Millisecond
		client = redis.NewClient(o)
	}
	store := redisbudget.New(client, redisbudget.WithTimeout(timeout))
	_ = store.LoadScript(context.Background()) // if Redis is down, calls fail closed
	return &redisBudget{client: client, store: store}
}

// quietLogger drops go-redis's own log lines (one per failed dial while
// Redis is down); the replica reports the first failure and the counts.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...interface{}) {}
