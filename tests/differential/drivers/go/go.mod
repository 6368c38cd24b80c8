module example.invalid/webhook-retry-policy/tests/differential/drivers/go

go 1.26.0

require example.invalid/webhook-retry-policy/host-examples/go v0.0.0

require (
	github.com/tetratelabs/wazero v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace example.invalid/webhook-retry-policy/host-examples/go => ../../../../host-examples/go
