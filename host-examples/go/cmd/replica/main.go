// Command replica is the Go host's dispatcher program (internal/driver):
// the REPLICA contract's command line (docs/replica.md) on the
// component's delivery engine, as the fleet tests run it
// (host-examples/go/replica builds and runs it).
package main

import (
	"context"
	"os"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/driver"
)

func main() {
	driver.KeepSignals = true // until the process exits: a late signal must not kill it after the summary
	os.Exit(driver.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
