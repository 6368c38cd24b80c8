package retrypolicy

import "context"

// DestinationRefusal says why address (an IPv4 or IPv6 address's text, no
// brackets or zone) may not be a webhook destination: the reason of
// fleet/destinations.json ("loopback", "private", "metadata"...), or ""
// when it may. The component judges it (docs/destinations.md), so every
// host refuses the same addresses. Text that is not an address is an
// error (invalid_address).
func (e *Engine) DestinationRefusal(ctx context.Context, address string) (string, error) {
	r, err := withAnswer(ctx, e, "destination-refusal", func(in *instance) (*string, error) {
		return in.callDestinationRefusal(ctx, address)
	})
	if r == nil {
		return "", err
	}
	return *r, err
}

// ReadTarget reads a webhook's target URL as the component reads it for
// every host (docs/destinations.md, "Reading a target URL"): http/https
// only, no user info, IPv4 numbers as browsers read them (127.1 is
// 127.0.0.1). The error's text starts with its code (invalid_url,
// unsupported_scheme, userinfo, invalid_host, invalid_port).
func (e *Engine) ReadTarget(ctx context.Context, url string) (Target, error) {
	return withAnswer(ctx, e, "read-target", func(in *instance) (Target, error) { return in.callReadTarget(ctx, url) })
}
