package driver

import (
	"context"
	"net/netip"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// judgeWith binds the HTTP client's destination check to the artifact's
// destination-refusal (docs/destinations.md): the table lives once, in the
// component, for every host. An address the component cannot judge is
// refused (fail closed).
func judgeWith(ctx context.Context, engine *rp.Engine) safehttp.Judge {
	return func(ip netip.Addr) string {
		why, err := engine.DestinationRefusal(ctx, ip.String())
		if err != nil {
			return "unjudged (" + err.Error() + ")"
		}
		return why
	}
}
