package safehttp

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
)

// fakeDNS is a resolver whose every A query is answered with ips (AAAA
// with nothing), over DNS-over-TCP framing on an in-memory pipe. queries
// counts the questions asked.
func fakeDNS(ips []netip.Addr, queries *atomic.Int64) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			for {
				var n uint16
				if binary.Read(server, binary.BigEndian, &n) != nil {
					return
				}
				q := make([]byte, n)
				if _, err := io.ReadFull(server, q); err != nil {
					return
				}
				queries.Add(1)
				end := 12
				for end < len(q) && q[end] != 0 {
					end += int(q[end]) + 1
				}
				end += 5 // the root label, QTYPE, QCLASS
				qtype := binary.BigEndian.Uint16(q[end-4:])
				resp := append([]byte{}, q[:2]...)
				resp = append(resp, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0)
				resp = append(resp, q[12:end]...)
				answers := 0
				if qtype == 1 {
					for _, ip := range ips {
						a := ip.As4()
						resp = append(resp, 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4)
						resp = append(resp, a[:]...)
						answers++
					}
				}
				binary.BigEndian.PutUint16(resp[6:], uint16(answers))
				frame := binary.BigEndian.AppendUint16(nil, uint16(len(resp)))
				if _, err := server.Write(append(frame, resp...)); err != nil {
					return
				}
			}
		}()
		return client, nil
	}}
}

func TestANameResolvingToAnyInternalAddressIsRefusedAfterOneLookup(t *testing.T) {
	var queries atomic.Int64
	g := &Guard{Resolver: fakeDNS([]netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("169.254.169.254")}, &queries)}
	_, err := g.DialContext(context.Background(), "tcp", "rebind.example:80")
	if !errors.Is(err, ErrDestinationRefused) {
		t.Fatalf("a name with a link-local address among its answers: %v, want refused", err)
	}
	if n := queries.Load(); n == 0 || n > 2 { // one lookup: A and AAAA
		t.Fatalf("%d DNS questions, want one lookup (A + AAAA)", n)
	}
}

// The address dialled is the one the lookup answered and the guard
// checked: a name that resolves to the loopback listener (allowed here)
// connects to it, with one lookup and no second resolution by the dialer.
func TestTheCheckedAddressIsTheOneDialled(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var queries atomic.Int64
	g := &Guard{AllowPrivate: true, Resolver: fakeDNS([]netip.Addr{netip.MustParseAddr("127.0.0.1")}, &queries)}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	c, err := g.DialContext(context.Background(), "tcp", net.JoinHostPort("receiver.example", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.RemoteAddr().String() != l.Addr().String() {
		t.Fatalf("dialled %s, want the checked %s", c.RemoteAddr(), l.Addr())
	}
	if n := queries.Load(); n == 0 || n > 2 {
		t.Fatalf("%d DNS questions, want one lookup", n)
	}
}
