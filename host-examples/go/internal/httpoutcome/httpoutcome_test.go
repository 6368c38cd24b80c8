package httpoutcome

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
)

// serve answers every connection with respond (after reading the request head).
func serve(t *testing.T, respond func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				respond(c)
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/"
}

func kind(t *testing.T, c *safehttp.Client, url string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader("{}"))
	_, err := c.Post(context.Background(), req)
	if err == nil {
		return "answered"
	}
	return string(ErrorKind(err))
}

func TestEveryTransportFailureHasItsContractKind(t *testing.T) {
	c := safehttp.NewClient(safehttp.Options{AttemptDeadline: 300 * time.Millisecond, AllowPrivateTargets: true})
	reset := func(conn net.Conn) {
		_, _ = conn.Write([]byte("HTTP/1.1 503 x\r\ncontent-length: 100\r\n\r\n01"))
		conn.(*net.TCPConn).SetLinger(0)
	}
	resetBefore := func(conn net.Conn) { conn.(*net.TCPConn).SetLinger(0) }
	drip := func(conn net.Conn) {
		for _, b := range []byte("HTTP/1.1 200 OK\r\n") {
			_, _ = conn.Write([]byte{b})
			time.Sleep(100 * time.Millisecond)
		}
	}
	endless := func(conn net.Conn) {
		_, _ = conn.Write([]byte("HTTP/1.1 200 OK\r\nx: "))
		_, _ = conn.Write([]byte(strings.Repeat("a", 64<<10)))
	}
	garbage := func(conn net.Conn) { _, _ = conn.Write([]byte("SSH-2.0-OpenSSH\r\n\r\n")) }
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedURL := "http://" + closed.Addr().String() + "/"
	closed.Close()
	for name, want := range map[string]struct{ url, kind string }{
		"a reset mid-body":        {serve(t, reset), "remote_protocol_error"},
		"a reset before answer":   {serve(t, resetBefore), "remote_protocol_error"},
		"a drip":                  {serve(t, drip), "read_timeout"},
		"an endless header line":  {serve(t, endless), "remote_protocol_error"},
		"bytes that are not HTTP": {serve(t, garbage), "remote_protocol_error"},
		"a closed port":           {closedURL, "connect_error"},
	} {
		if got := kind(t, c, want.url); got != want.kind {
			t.Errorf("%s: %s, want %s", name, got, want.kind)
		}
	}
	refusing := safehttp.NewClient(safehttp.Options{AttemptDeadline: 300 * time.Millisecond})
	if got := kind(t, refusing, closedURL); got != "destination_refused" {
		t.Errorf("loopback without the allow option: %s, want destination_refused", got)
	}
}

func TestNoRedirectIsFollowedAndAHugeBodyIsCutAt64KiB(t *testing.T) {
	c := safehttp.NewClient(safehttp.Options{AllowPrivateTargets: true})
	redirect := serve(t, func(conn net.Conn) {
		_, _ = conn.Write([]byte("HTTP/1.1 307 x\r\nlocation: http://127.0.0.1:1/stolen\r\ncontent-length: 0\r\n\r\n"))
	})
	req, _ := http.NewRequest(http.MethodPost, redirect, strings.NewReader("{}"))
	if resp, err := c.Post(context.Background(), req); err != nil || resp.StatusCode != 307 {
		t.Fatalf("redirect: %+v %v, want the 307 itself", resp, err)
	}
	huge := serve(t, func(conn net.Conn) {
		_, _ = conn.Write([]byte("HTTP/1.1 200 OK\r\ncontent-length: 2147483648\r\n\r\n"))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for i := 0; i < 64; i++ {
			if _, err := conn.Write(chunk); err != nil {
				return
			}
		}
	})
	req, _ = http.NewRequest(http.MethodPost, huge, strings.NewReader("{}"))
	if resp, err := c.Post(context.Background(), req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("huge body: %+v %v", resp, err)
	}
}
