//! The compiled-code cache every engine uses by default (issue 20: cold
//! start). wasmtime's own cache (its `cache` feature), not a hand-written
//! one: wasmtime keys, writes and checks the entries itself.

/// The environment variable that places the compiled-code cache
/// (`off` or `0`: no cache), shared in name with the Python package.
pub const CACHE_ENV: &str = "WEBHOOK_RETRY_POLICY_CACHE";

/// wasmtime's own compilation cache, on by default (issue 20: cold start):
/// a fresh process that loads an artifact it compiled before skips
/// Cranelift (measured by `retry-policy bench`'s cold-start rows). The
/// cache is keyed by wasmtime on the artifact's bytes, the wasmtime version
/// and the compiler settings, and holds only what wasmtime wrote there.
/// Directory: `$WEBHOOK_RETRY_POLICY_CACHE`, else wasmtime's default
/// (`~/.cache/wasmtime`). A cache that cannot be set up (read-only home)
/// means compiling every time, never a failed load. One cache (and one
/// wasmtime cache worker thread) per process, set up on the first load:
/// the variable is read then.
pub(crate) fn compile_cache() -> Option<wasmtime::Cache> {
    static CACHE: std::sync::OnceLock<Option<wasmtime::Cache>> = std::sync::OnceLock::new();
    CACHE.get_or_init(|| cache_from(&std::env::var(CACHE_ENV).unwrap_or_default())).clone()
}

/// The cache the variable's value names (None: off, or unusable).
fn cache_from(value: &str) -> Option<wasmtime::Cache> {
    if value == "off" || value == "0" {
        return None;
    }
    let mut config = wasmtime::CacheConfig::new();
    if !value.is_empty() {
        config.with_directory(value);
    }
    wasmtime::Cache::new(config).ok()
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use std::path::Path;
    use wasmtime::component::Component;
    use wasmtime::{Config, Engine};

    #[test]
    fn off_and_zero_mean_no_compilation_cache() {
        assert!(cache_from("off").is_none() && cache_from("0").is_none());
    }

    #[test]
    fn the_compilation_cache_is_written_where_the_variable_says() {
        let dir = std::env::temp_dir().join(format!("retry-policy-cache-test-{}", std::process::id()));
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.cache(cache_from(dir.to_str().expect("a UTF-8 temp dir")));
        let engine = Engine::new(&config).expect("an engine");
        Component::new(&engine, crate::artifact::EMBEDDED).expect("the embedded artifact compiles");
        let files = walk(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(files > 0, "no compiled code under {}", dir.display());
    }

    fn walk(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| if e.path().is_dir() { walk(&e.path()) } else { 1 })
            .sum()
    }
}
