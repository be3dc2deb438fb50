#!/usr/bin/env bash
# The public API of tool-sdk and tool-registry, listed by cargo-public-api (rustdoc JSON, on the
# nightly toolchain beside stable) and compared with the listings committed in api/, so that a new
# public item is a conscious change: the check fails with the diff, and `--bless` rewrites the
# listings. It also prints how many items each crate exports, counted at every path (the counts
# issue #32 tracks: tool-registry items, tool-sdk root names).
#
# Listings: `cargo public-api -sss` (blanket, auto-trait and auto-derived impls left out; items
# marked #[doc(hidden)] are not listed), tool-sdk with its `anyhow` feature, tool-registry with
# the features of its API (`mcp`, `mcp-server`, `redis`); `test-support` (internals for the
# crate's own tests) is not part of it.
# cargo-public-api 0.52.0 is installed into target/cargo-public-api when missing.
#
# Usage: scripts/public-api.sh [--bless]
# Skips (saying so, exit 0) when no nightly toolchain is installed: rustdoc JSON needs one.
set -euo pipefail
cd "$(dirname "$0")/.."
bless=${1:-}
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "public API: SKIPPED: no nightly toolchain (rustdoc JSON needs one)"
    exit 0
fi
root=target/cargo-public-api
if [ ! -x "$root/bin/cargo-public-api" ]; then
    cargo install --quiet --locked cargo-public-api --version 0.52.0 --root "$root"
fi
export PATH="$PWD/$root/bin:$PATH"
# Its own target dir: the nightly rustdoc build neither waits for nor invalidates the main one.
export CARGO_TARGET_DIR="$PWD/target/public-api"
status=0
for crate in tool-sdk tool-registry; do
    features=()
    [ "$crate" = tool-sdk ] && features=(--features anyhow)
    [ "$crate" = tool-registry ] && features=(--features mcp,mcp-server,redis)
    listing=$(mktemp)
    cargo public-api --color never -p "$crate" "${features[@]}" -sss 2>/dev/null > "$listing"
    python3 - "$crate" "$listing" <<'PY'
import re, sys
crate, path = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
root = crate.replace("-", "_")
modules = {m.group(1) for line in lines if (m := re.match(r"pub mod (\S+)$", line))}
# An item is a `pub` fn, type, trait, constant, static, macro or re-export whose parent is a
# module (methods, fields and variants are not items); an item re-exported elsewhere counts at
# each path. Root names: the items directly at the crate root, modules not counted.
items = 0
root_names = set()
for line in lines:
    m = re.match(r"(?:#\[[^\]]*\] )*pub (?:(?:async |const |unsafe )*fn|struct|enum|trait|const|static|type|use|macro) ([A-Za-z0-9_:]+)(<[^>]*>::)?", line)
    # `pub fn path::Type<A>::method(..)`: a method of a generic type, not an item of the module.
    if m and m.group(2):
        continue
    if not m:
        continue
    parent = m.group(1).rsplit("::", 1)[0]
    if parent in modules:
        items += 1
        if parent == root:
            root_names.add(m.group(1))
print(f"public API: {crate}: {items} item paths in {len(modules)} public modules, {len(root_names)} names at the root")
PY
    if [ "$bless" = --bless ]; then
        cp "$listing" "api/$crate.txt"
    elif ! diff -u "api/$crate.txt" "$listing"; then
        echo "public API: $crate differs from api/$crate.txt (above); if the change is meant, run scripts/public-api.sh --bless and commit the listing"
        status=1
    fi
    rm -f "$listing"
done
exit "$status"
