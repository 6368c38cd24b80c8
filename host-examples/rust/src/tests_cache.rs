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
