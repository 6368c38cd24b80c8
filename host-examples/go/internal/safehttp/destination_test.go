package safehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// componentJudge is the judge a dispatcher binds: the artifact's
// destination-refusal (fleet/destinations.json, once for every host).
func componentJudge(t *testing.T) Judge {
	t.Helper()
	ctx := context.Background()
	e, err := retrypolicy.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(ctx) })
	return func(ip netip.Addr) string {
		why, err := e.DestinationRefusal(ctx, ip.String())
		if err != nil {
			t.Fatalf("%s: %v", ip, err)
		}
		return why
	}
}

// Every case of tests/vectors-destination/destinations.json.
func TestEveryDestinationVector(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "tests", "vectors-destination", "destinations.json"))
	if err != nil {
		t.Skipf("no destination vectors: %v", err)
	}
	var doc struct {
		Table string `json:"table"`
		Cases []struct {
			Name    string `json:"name"`
			Address string `json:"address"`
			Expect  string `json:"expect"`
			Reason  string `json:"reason"`
		} `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("vectors: %v", err)
	}
	if len(doc.Cases) == 0 {
		t.Fatal("no cases")
	}
	judge := componentJudge(t)
	for _, c := range doc.Cases {
		ip, err := netip.ParseAddr(c.Address)
		if err != nil {
			t.Errorf("case %q: %v", c.Name, err)
			continue
		}
		got := judge(ip)
		switch c.Expect {
		case "allowed":
			if got != "" {
				t.Errorf("case %q (%s): refused as %s, want allowed", c.Name, c.Address, got)
			}
		case "refused":
			if got != c.Reason || c.Reason == "" {
				t.Errorf("case %q (%s): got %q, want refused as %q", c.Name, c.Address, got, c.Reason)
			}
		default:
			t.Errorf("case %q: expect %q", c.Name, c.Expect)
		}
	}
}

func TestInternalAddressesAreRefusedAndPublicOnesAllowed(t *testing.T) {
	g := &Guard{Judge: componentJudge(t)}
	for _, a := range []string{"127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"fc00::1", "fd12::1", "169.254.169.254", "fe80::1", "100.64.0.1", "100.127.255.255", "0.0.0.0", "::",
		"224.0.0.1", "ff02::1", "255.255.255.255", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "2002:7f00:1::"} {
		if g.judge(netip.MustParseAddr(a)) == "" {
			t.Errorf("%s is allowed, want refused", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:1.1.1.1"} {
		if why := g.judge(netip.MustParseAddr(a)); why != "" {
			t.Errorf("%s is refused (%s), want allowed", a, why)
		}
	}
}

// Literal addresses are judged without asking DNS.
func TestALiteralInternalAddressIsRefusedWithoutALookup(t *testing.T) {
	dials := 0
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		dials++
		return nil, errors.New("no DNS in tests")
	}}
	g := &Guard{Resolver: r, Judge: componentJudge(t)}
	_, err := g.DialContext(context.Background(), "tcp", "127.0.0.1:9")
	if !errors.Is(err, ErrDestinationRefused) {
		t.Fatalf("loopback literal: %v, want refused", err)
	}
	_, err = g.DialContext(context.Background(), "tcp", "[::ffff:169.254.169.254]:80")
	if !errors.Is(err, ErrDestinationRefused) {
		t.Fatalf("mapped metadata address: %v, want refused", err)
	}
	if dials != 0 {
		t.Fatalf("%d DNS dials for literals", dials)
	}
}

func TestTheLastCheckIsOnTheSocketAddressItself(t *testing.T) {
	g := &Guard{Judge: componentJudge(t)}
	if err := g.controlRefused("tcp4", "127.0.0.1:80", nil); !errors.Is(err, ErrDestinationRefused) {
		t.Fatalf("control on loopback: %v", err)
	}
	if err := g.controlRefused("tcp4", "93.184.216.34:80", nil); err != nil {
		t.Fatalf("control on a public address: %v", err)
	}
}

func TestAllowingPrivateTargetsDialsLoopback(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	g := &Guard{AllowPrivate: true}
	c, err := g.DialContext(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestAGuardWithoutAJudgeRefusesEveryAddressFailingClosed(t *testing.T) {
	g := &Guard{}
	_, err := g.DialContext(context.Background(), "tcp", "93.184.216.34:80")
	if !errors.Is(err, ErrDestinationRefused) {
		t.Fatalf("a public address without a judge: %v, want refused", err)
	}
}
