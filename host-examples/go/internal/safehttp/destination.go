package safehttp

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"
)

// ErrDestinationRefused is wrapped by every refusal of a destination: an
// address the product's table (fleet/destinations.json) refuses, while
// private targets are not allowed.
var ErrDestinationRefused = errors.New("destination refused")

// destinationsJSON is fleet/destinations.json, byte for byte (a copy: a Go
// module cannot embed files outside itself; TestTheEmbeddedTableIsCurrent
// fails when it is stale).
//
//go:generate cp ../../../../fleet/destinations.json destinations.json
//go:embed destinations.json
var destinationsJSON []byte

type entry struct {
	prefix netip.Prefix
	reason string
}

type table struct {
	embedded []netip.Prefix
	refused  []entry
}

var loaded = sync.OnceValue(func() table {
	var doc struct {
		EmbeddedIPv4 []string `json:"embedded_ipv4"`
		Refused      []struct {
			CIDR   string `json:"cidr"`
			Reason string `json:"reason"`
		} `json:"refused"`
	}
	if err := json.Unmarshal(destinationsJSON, &doc); err != nil {
		panic("destinations.json: " + err.Error())
	}
	var t table
	for _, c := range doc.EmbeddedIPv4 {
		t.embedded = append(t.embedded, netip.MustParsePrefix(c))
	}
	for _, e := range doc.Refused {
		t.refused = append(t.refused, entry{netip.MustParsePrefix(e.CIDR), e.Reason})
	}
	return t
})

// Refusal names why a webhook must not be sent to ip by default ("" when
// it may): the first entry of fleet/destinations.json that contains it,
// after an IPv6 address carrying an IPv4 one (IPv4-mapped, NAT64) is
// replaced by that IPv4 address. An invalid address is "unparsable".
func Refusal(ip netip.Addr) string {
	if !ip.IsValid() {
		return "unparsable"
	}
	t := loaded()
	ip = ip.WithZone("")
	if ip.Is6() {
		for _, p := range t.embedded {
			if p.Contains(ip) {
				b := ip.As16()
				ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
				break
			}
		}
	}
	for _, e := range t.refused {
		if e.prefix.Contains(ip) {
			return e.reason
		}
	}
	return ""
}

// Refused reports whether a webhook must not be sent to ip by default.
func Refused(ip netip.Addr) bool {
	return Refusal(ip) != ""
}

// Guard dials only checked addresses: it resolves a host once, refuses
// the connection if any of its addresses is refused (unless AllowPrivate),
// and dials the very address it checked, so a second lookup can never
// answer differently (no DNS-rebinding gap). The dialer's Control hook
// checks the socket's address once more, whatever path reached it.
type Guard struct {
	AllowPrivate bool
	Resolver     *net.Resolver // nil = net.DefaultResolver
	Dialer       net.Dialer
}

// DialContext is an http.Transport DialContext.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		r := g.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		if ips, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: err}
		}
	}
	if !g.AllowPrivate {
		for _, ip := range ips {
			if why := Refusal(ip); why != "" {
				return nil, fmt.Errorf("%w: %s resolves to a %s address (%s)", ErrDestinationRefused, host, why, ip)
			}
		}
	}
	d := g.Dialer
	if !g.AllowPrivate {
		d.Control = controlRefused
	}
	var firstErr error
	for _, ip := range ips {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if firstErr == nil {
		firstErr = &net.OpError{Op: "dial", Net: network, Err: errors.New("no address")}
	}
	return nil, firstErr
}

// controlRefused is the last check, on the address the socket connects to.
func controlRefused(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || Refused(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrDestinationRefused, address)
	}
	return nil
}
