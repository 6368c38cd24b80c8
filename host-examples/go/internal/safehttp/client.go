// Package safehttp is the delivery client of the Go dispatchers (the
// example dispatcher and the fleet replica): net/http configured so a
// hostile endpoint cannot hold a worker, its memory, or the network
// behind it.
//
//   - every attempt has a total deadline (Options.AttemptDeadline, default
//     30 s; a context.WithTimeout around the whole exchange, body included),
//     so a one-byte-per-second drip ends as read_timeout;
//   - response headers are capped (Transport.MaxResponseHeaderBytes, 16 KiB)
//     and at most a 64 KiB body prefix is read (io.LimitReader), then
//     discarded;
//   - no redirect is followed (CheckRedirect returns http.ErrUseLastResponse:
//     a 3xx is a status like any other, terminal by the contract);
//   - no proxy from the environment, no transparent decompression;
//   - destinations go through a Guard (destination.go), https:// too: the
//     TLS handshake runs on the checked connection and verifies the
//     certificate against the platform's trust store (plus Options.RootCAs'
//     pool, see TrustWithCAFile) and the URL's host name; there is no way
//     to skip verification (tls.go).
//
// How an attempt ended is named by internal/httpoutcome.
package safehttp

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"time"
)

// Bounds of what one response may cost.
const (
	MaxHeaderBytes = 16 << 10
	MaxBodyBytes   = 64 << 10
	// DefaultAttemptDeadline is the total time one attempt may take.
	DefaultAttemptDeadline = 30 * time.Second
)

// Options configure a Client.
type Options struct {
	AttemptDeadline     time.Duration // 0 = DefaultAttemptDeadline
	ConnectTimeout      time.Duration // 0 = 10 s (never longer than the attempt deadline)
	AllowPrivateTargets bool          // deliver to loopback/private/... too (local development, tests)
	Judge               Judge         // the component's destination-refusal (nil: every address refused)
	IdlePerHost         int           // keep-alive connections per host (0 = 8)
	// RootCAs verifies https:// servers (nil: the platform's trust store;
	// TrustWithCAFile adds a --ca-file to it).
	RootCAs *x509.CertPool
	// Observe, when set, is told how long each attempt that reached a
	// connection took: from the connect of a new connection (after the DNS
	// lookup) or the pooled connection handed over, to the end of the body
	// read or the transport error. An attempt refused before any connection
	// (destination_refused) or by its send gate is not observed.
	Observe func(time.Duration)
}

// Client posts attempts.
type Client struct {
	HTTP     *http.Client
	Deadline time.Duration
	observe  func(time.Duration)
}

// NewClient builds the delivery client.
func NewClient(o Options) *Client {
	if o.AttemptDeadline <= 0 {
		o.AttemptDeadline = DefaultAttemptDeadline
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.IdlePerHost <= 0 {
		o.IdlePerHost = 8
	}
	g := &Guard{AllowPrivate: o.AllowPrivateTargets, Judge: o.Judge}
	g.Dialer.Timeout = o.ConnectTimeout
	g.Dialer.KeepAlive = 30 * time.Second
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would dial the target for us, unchecked
		DialContext:            gated(g.DialContext),
		DialTLSContext:         gated(dialTLS(g, o.RootCAs, o.ConnectTimeout)),
		MaxResponseHeaderBytes: MaxHeaderBytes,
		MaxIdleConns:           o.IdlePerHost * 4,
		MaxIdleConnsPerHost:    o.IdlePerHost,
		IdleConnTimeout:        90 * time.Second,
		DisableCompression:     true,
		ForceAttemptHTTP2:      false,
	}
	return &Client{Deadline: o.AttemptDeadline, observe: o.Observe, HTTP: &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Post sends req within the attempt deadline, reads at most MaxBodyBytes
// of the body, discards them and closes it: the response's status and
// headers are what is kept. A transport error (or one while reading the
// body prefix) is returned for httpoutcome.ErrorKind to name; a request
// its send gate refused (WithSendGate) is ErrNotSent.
func (c *Client) Post(ctx context.Context, req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Deadline)
	defer cancel()
	ctx, gate := withGate(ctx)
	ctx, elapsed := timed(ctx)
	resp, err := c.HTTP.Do(req.WithContext(ctx))
	if gate != nil && gate.refused.Load() {
		if err == nil {
			resp.Body.Close()
		}
		return nil, ErrNotSent
	}
	if err == nil {
		_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBodyBytes))
		resp.Body.Close()
	}
	if d, ok := elapsed(); ok && c.observe != nil && !errors.Is(err, ErrDestinationRefused) {
		c.observe(d)
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}
