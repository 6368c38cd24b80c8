package safehttp

import (
	"context"
	"errors"
	"net"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"
)

// ErrNotSent is returned by Post when the request's send gate (WithSendGate)
// refused it immediately before its first byte was written: nothing of
// it reached the server.
var ErrNotSent = errors.New("the send gate refused the request before it was written")

type gateKey struct{}

// WithSendGate has Post ask mayWrite immediately before the request's
// first byte is written (after the wait, the store call, the DNS lookup,
// the connect and the TLS handshake, on a new or a pooled connection); a
// false answer sends nothing and Post returns ErrNotSent. The dispatchers
// use it for the window's edge (docs/replica.md).
func WithSendGate(ctx context.Context, mayWrite func() bool) context.Context {
	return context.WithValue(ctx, gateKey{}, mayWrite)
}

// sendGate is one request's gate, handed to its connection by GotConn.
type sendGate struct {
	mayWrite func() bool
	once     sync.Once
	refused  atomic.Bool
}

// check runs the gate once: the first write of the request asks it.
func (g *sendGate) check() bool {
	g.once.Do(func() { g.refused.Store(!g.mayWrite()) })
	return !g.refused.Load()
}

// withGate returns ctx traced so the connection the request gets is gated
// by the context's send gate (nil when ctx has none).
func withGate(ctx context.Context) (context.Context, *sendGate) {
	mayWrite, ok := ctx.Value(gateKey{}).(func() bool)
	if !ok {
		return ctx, nil
	}
	g := &sendGate{mayWrite: mayWrite}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			if c, ok := info.Conn.(*gatedConn); ok {
				c.arm(g)
			}
		},
	}), g
}

// gatedConn is every connection the Client dials: its next Write after
// arm asks the request's gate first.
type gatedConn struct {
	net.Conn
	mu   sync.Mutex
	gate *sendGate
}

func (c *gatedConn) arm(g *sendGate) {
	c.mu.Lock()
	c.gate = g
	c.mu.Unlock()
}

func (c *gatedConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	g := c.gate
	c.gate = nil
	c.mu.Unlock()
	if g != nil && !g.check() {
		return 0, ErrNotSent
	}
	return c.Conn.Write(b)
}

// gated wraps what dial returns in a gatedConn.
func gated(dial func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := dial(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return &gatedConn{Conn: conn}, nil
	}
}

// timed traces ctx so the returned func reports how long the attempt has
// taken since its connection started (the connect of a new connection,
// after any DNS lookup, or the pooled connection handed over), and false
// when it never reached one (a refused destination, a failed lookup).
func timed(ctx context.Context) (context.Context, func() (time.Duration, bool)) {
	var started atomic.Int64 // unix ns; 0 = not yet
	mark := func() { started.CompareAndSwap(0, time.Now().UnixNano()) }
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectStart: func(string, string) { mark() },
		GotConn:      func(httptrace.GotConnInfo) { mark() },
	})
	return ctx, func() (time.Duration, bool) {
		s := started.Load()
		if s == 0 {
			return 0, false
		}
		return time.Since(time.Unix(0, s)), true
	}
}
