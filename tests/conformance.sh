#!/usr/bin/env bash
# Run every vector file in DIR (default tests/vectors) through every host
# that exists and print one line per host, exactly `HOST: N passed, M failed`
# (failing cases are named on the lines before it). Exits non-zero on any
# failure, unknown op or unknown field.
#
#   tests/conformance.sh [DIR]
#
# Hosts: native (policy-core), wasmtime (the component, Rust host), then
# node, python and go when host-examples/<lang>/conformance exists.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/tests/vectors}
if [ ! -e "$dir" ]; then echo "no such vector directory: $dir" >&2; exit 2; fi
dir=$(cd "$dir" 2>/dev/null && pwd || echo "$dir")
cd "$root"

status=0
if [ ! -f dist/retry_policy.wasm ]; then scripts/build-component >/dev/null || status=1; fi
if scripts/build-rust; then
  for host in native wasmtime; do
    target/release/conformance --host "$host" "$dir" || status=1
  done
else
  echo "native: 0 passed, 1 failed (build failed)"; echo "wasmtime: 0 passed, 1 failed (build failed)"; status=1
fi
for lang in node python go; do
  runner="host-examples/$lang/conformance"
  if [ -x "$runner" ]; then
    "$runner" "$dir" || status=1
  fi
done
exit $status
