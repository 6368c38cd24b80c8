package safehttp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingServer answers 204 and counts the request bytes it received.
func countingServer(t *testing.T) (string, *atomic.Int64, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var requests, bytes atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(countingListener{l, &bytes}) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String() + "/", &requests, &bytes
}

type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.n}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

func post(c *Client, url string, mayWrite func() bool) error {
	ctx := context.Background()
	if mayWrite != nil {
		ctx = WithSendGate(ctx, mayWrite)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"a":1}`))
	_, err := c.Post(ctx, req)
	return err
}

func TestARequestItsGateRefusesIsNotWrittenOnANewOrAPooledConnection(t *testing.T) {
	url, requests, bytes := countingServer(t)
	c := NewClient(Options{AttemptDeadline: 2 * time.Second, AllowPrivateTargets: true})
	var asked atomic.Int64
	refuse := func() bool { asked.Add(1); return false }
	if err := post(c, url, refuse); !errors.Is(err, ErrNotSent) {
		t.Fatalf("a refused request on a new connection: %v, want ErrNotSent", err)
	}
	time.Sleep(50 * time.Millisecond)
	if requests.Load() != 0 || bytes.Load() != 0 {
		t.Fatalf("the server received %d requests, %d bytes of a refused request", requests.Load(), bytes.Load())
	}
	if err := post(c, url, func() bool { return true }); err != nil {
		t.Fatalf("an allowed request: %v", err)
	}
	sent := bytes.Load()
	if err := post(c, url, refuse); !errors.Is(err, ErrNotSent) { // the pooled connection of the request before
		t.Fatalf("a refused request on a pooled connection: %v, want ErrNotSent", err)
	}
	time.Sleep(50 * time.Millisecond)
	if requests.Load() != 1 || bytes.Load() != sent {
		t.Fatalf("the server received %d requests (want 1) and %d more bytes", requests.Load(), bytes.Load()-sent)
	}
	if asked.Load() < 2 {
		t.Fatalf("the gate was asked %d times, want once per refused request", asked.Load())
	}
	if err := post(c, url, nil); err != nil {
		t.Fatalf("a request without a gate: %v", err)
	}
}
