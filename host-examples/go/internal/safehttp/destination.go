package safehttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// ErrDestinationRefused is wrapped by every refusal of a destination: an
// address that is loopback, private, link-local, shared, unspecified,
// multicast or broadcast, while private targets are not allowed.
var ErrDestinationRefused = errors.New("destination refused")

// refusedPrefixes are the ranges no webhook may reach by default (on top of
// what netip's predicates name: loopback, private, link-local, multicast,
// unspecified).
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and 255.255.255.255 broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2002::/16"),      // 6to4 (embeds any IPv4, private ones too)
}

// Refused reports whether a webhook must not be sent to ip by default.
// IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
func Refused(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
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
			if Refused(ip) {
				return nil, fmt.Errorf("%w: %s resolves to a non-public address", ErrDestinationRefused, host)
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
