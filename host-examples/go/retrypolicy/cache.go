package retrypolicy

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/tetratelabs/wazero"
)

// CacheEnv names the directory of the compiled-code cache ("off" or "0":
// no cache), the same variable as the Python package's and the Rust
// host's.
const CacheEnv = "WEBHOOK_RETRY_POLICY_CACHE"

var (
	defaultCacheOnce sync.Once
	defaultCache     wazero.CompilationCache
)

// DefaultCompilationCache is the cache New uses unless told otherwise
// (issue 20: cold start): wazero's file cache in $WEBHOOK_RETRY_POLICY_CACHE,
// else <os.UserCacheDir()>/webhook-retry-policy/wazero, shared by every
// engine of the process. wazero keys the entries by the module's bytes and
// its own version, and writes them itself; a fresh process that loads an
// artifact compiled before skips the compile (`go run ./cmd/benchtable`
// prints both cold starts side by side). nil when the variable says off or
// the directory cannot be made (a read-only home): compile every time,
// never a failed load.
func DefaultCompilationCache() wazero.CompilationCache {
	defaultCacheOnce.Do(func() { defaultCache, _ = cacheFrom(os.Getenv(CacheEnv)) })
	return defaultCache
}

// cacheFrom is the cache the variable's value names, and its directory
// ("" and nil when off or unusable).
func cacheFrom(value string) (wazero.CompilationCache, string) {
	if value == "off" || value == "0" {
		return nil, ""
	}
	dir := value
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, ""
		}
		dir = filepath.Join(base, "webhook-retry-policy", "wazero")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, ""
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, ""
	}
	return c, dir
}
