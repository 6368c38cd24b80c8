// Command dispatcher is the Go host's one dispatcher program (issue 26:
// the example dispatcher and the REPLICA program are one; the fleet tests
// run it through host-examples/go/replica, which builds it):
// internal/driver on the component's delivery engine, with the REPLICA
// contract's flags (docs/replica.md) and `replay`:
//
//	go run ./examples/dispatcher --target URL --endpoint-id ID --events N [--policy FILE]
//	    [--store FILE] [--resume FILE] [--redis URL] [--metrics-addr 127.0.0.1:0]
//	    [--signing-secrets FILE] [--allow-private-targets] [...]   (--help lists them)
//	go run ./examples/dispatcher replay --store FILE --policy FILE [...]
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
