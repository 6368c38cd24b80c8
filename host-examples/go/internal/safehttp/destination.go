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
// address the product's table (fleet/destinations.json) refuses, while
// private targets are not allowed.
var ErrDestinationRefused = errors.New("destination refused")

// Judge says why ip may not be a webhook destination ("" when it may):
// the component's destination-refusal (fleet/destinations.json, judged once
// for every host: docs/destinations.md), bound by the caller so this
// package needs no table of its own.
type Judge func(ip netip.Addr) string

// refuseAll is the judge of a Guard given none while private targets are
// not allowed: fail closed.
func refuseAll(netip.Addr) string { return "unjudged" }

// Guard dials only checked addresses: it resolves a host once, refuses
// the connection if any of its addresses is refused (unless AllowPrivate),
// and dials the very address it checked, so a second lookup can never
// answer differently (no DNS-rebinding gap). The dialer's Control hook
// checks the socket's address once more, whatever path reached it.
type Guard struct {
	AllowPrivate bool
	Judge        Judge         // nil refuses every address (unless AllowPrivate)
	Resolver     *net.Resolver // nil = net.DefaultResolver
	Dialer       net.Dialer
}

func (g *Guard) judge(ip netip.Addr) string {
	if !ip.IsValid() {
		return "unparsable"
	}
	if g.Judge == nil {
		return refuseAll(ip)
	}
	return g.Judge(ip.WithZone(""))
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
			if why := g.judge(ip); why != "" {
				return nil, fmt.Errorf("%w: %s resolves to a %s address (%s)", ErrDestinationRefused, host, why, ip)
			}
		}
	}
	d := g.Dialer
	if !g.AllowPrivate {
		d.Control = g.controlRefused
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
func (g *Guard) controlRefused(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || g.judge(ap.Addr()) != "" {
		return fmt.Errorf("%w: %s", ErrDestinationRefused, address)
	}
	return nil
}
