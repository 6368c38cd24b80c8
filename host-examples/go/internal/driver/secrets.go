package driver

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"example.invalid/webhook-retry-policy/host-examples/go/signing"
)

// SecretsFile reads {"endpoint_id": ["whsec_…", …]} from a file, cached
// until a reload. An endpoint absent from the file is sent unsigned.
// Errors name the file and the endpoint, never a secret.
type SecretsFile struct {
	Path string

	mu     sync.Mutex
	loaded bool
	byEP   map[string][]signing.Secret
}

// Secrets gives an endpoint's signing secrets (during a rotation several:
// every one signs). reload asks for a fresh read instead of the cached
// one: the policy's refresh_credentials (a 401/403 retried once) reloads
// before that retry.
func (f *SecretsFile) Secrets(endpointID string, reload bool) ([]signing.Secret, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.loaded || reload {
		byEP, err := readSecrets(f.Path)
		if err != nil {
			return nil, err
		}
		f.byEP, f.loaded = byEP, true
	}
	return f.byEP[endpointID], nil
}

func readSecrets(path string) (map[string][]signing.Secret, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signing secrets %s: %w", path, err)
	}
	var raw map[string][]string
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("signing secrets %s: not a JSON object of endpoint ids to lists of whsec_ secrets", path)
	}
	out := make(map[string][]signing.Secret, len(raw))
	for ep, list := range raw {
		for i, s := range list {
			sec, err := signing.ParseSecret(s)
			if err != nil {
				return nil, fmt.Errorf("signing secrets %s: endpoint %q, secret %d: %w", path, ep, i+1, err)
			}
			out[ep] = append(out[ep], sec)
		}
	}
	return out, nil
}
