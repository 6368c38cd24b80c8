package retrypolicy_test

import (
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/bench"
)

// go test -run '^$' -bench DeliveryEngine ./retrypolicy   (also a row of ../bench)
func BenchmarkDeliveryEngineEvent(b *testing.B) { bench.DeliveryEngineEvent(b) }
