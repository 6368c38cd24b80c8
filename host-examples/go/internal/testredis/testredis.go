// Package testredis runs Debian's redis-server for the Go host's tests
// (the replica's store, the rollout follower). Nothing here is used
// outside tests.
package testredis

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Start runs redis-server on a free loopback port for one test, with args
// added (its TLS or ACL settings; nil: Plain), and returns the port and an
// admin client (a client with tlsConfig when it speaks TLS). Without
// redis-server the test is skipped, unless RETRY_POLICY_REQUIRE_REDIS is
// set (the test script sets it when the binary exists).
func Start(t *testing.T, tlsConfig *tls.Config, args func(port int) []string) (int, *redis.Client) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("RETRY_POLICY_REQUIRE_REDIS") != "" {
			t.Fatal("redis-server is not installed")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	if args == nil {
		args = Plain
	}
	port := FreePort(t)
	argv := append([]string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args(port)...)
	cmd := exec.Command(bin, argv...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	admin := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), TLSConfig: tlsConfig, Protocol: 2})
	t.Cleanup(func() { _ = admin.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for admin.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return port, admin
}

// Plain is a plain TCP listener on port.
func Plain(port int) []string { return []string{"--port", strconv.Itoa(port)} }

// FreePort is a loopback TCP port nothing listens on now.
func FreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
