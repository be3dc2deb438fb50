#!/usr/bin/env bash
# Builds the fuzz crate (nightly, cargo-fuzz) and runs every libFuzzer target for a few seconds
# from its seeds (RELIABILITY.md has the long runs). Not part of `.ci/run`: the instrumented
# build of the whole dependency tree takes longer than the CI budget on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
if ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz smoke run SKIPPED: no nightly toolchain (rustup toolchain install nightly)"
    exit 0
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
python3 scripts/fuzz-seeds.py
cd fuzz
cargo +nightly fuzz build -O
for target in $(cargo +nightly fuzz list); do
    cargo +nightly fuzz run -O "$target" -- -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 2>&1 | tail -n 3
done
