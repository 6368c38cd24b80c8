package redisbudget

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startRedis runs a throwaway redis-server on a free loopback port for one
// test (no persistence). Without redis-server the test is skipped, unless
// RETRY_POLICY_REQUIRE_REDIS is set (the test script sets it when the
// binary exists).
func startRedis(t *testing.T) *redis.Client {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("RETRY_POLICY_REQUIRE_REDIS") != "" {
			t.Fatal("redis-server is not installed")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	t.Cleanup(func() { _ = rdb.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for rdb.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return rdb
}

func TestTheEmbeddedScriptIsTheFleetScript(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "..", "fleet", "budget.lua"))
	if err != nil {
		t.Skipf("no fleet/budget.lua to compare with: %v", err)
	}
	if string(want) != budgetLua {
		t.Fatal("budget_lua.go is stale: run `go generate ./redisbudget` in host-examples/go")
	}
}
