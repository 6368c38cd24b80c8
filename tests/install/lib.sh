# Sourced by tests/install/{node,python,go,rust}: what every language's
# install test does the same way. Each script is run by tests/install/run as
#   tests/install/LANG WORK
# with CHECKOUT (a copy of the files git tracks: a clean checkout, outside the
# repository) and INSTALL_CACHE (caches kept between runs: target/install/)
# in its environment; WORK is an empty directory of its own.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
: "${CHECKOUT:?tests/install/run sets CHECKOUT}" "${INSTALL_CACHE:?tests/install/run sets INSTALL_CACHE}"
work="$(cd "$1" && pwd)"

fail() { echo "FAIL: $*" >&2; exit 1; }

# recipe README DIR: run the README's "Install and first decision" section
# (tests/install/readme-script) in the empty directory DIR, its output in
# DIR.log; on success print the line its snippet printed ("first decision: ..."),
# which must be a retry after 120000 ms (the snippet's 503 with Retry-After: 120).
recipe() {
  local readme=$1 dir=$2
  mkdir -p "$dir"
  "$here/readme-script" "$readme" > "$dir.sh"
  if ! (cd "$dir" && bash "$dir.sh") > "$dir.log" 2>&1; then
    tail -n 40 "$dir.log" >&2
    fail "the recipe of ${readme#"$CHECKOUT"/} failed (its log: $dir.log)"
  fi
  local line
  line="$(grep '^first decision: ' "$dir.log" | tail -n 1)" || fail "${readme#"$CHECKOUT"/}: its snippet printed no 'first decision:' line"
  echo "$line"
  [[ $line == *120000* ]] || fail "the first decision is not a retry after 120000 ms: $line"
}

# size FILE: its size in bytes, and in KiB.
size() { local b; b="$(stat -c %s "$1")"; echo "$b B ($((b / 1024)) KiB)"; }
