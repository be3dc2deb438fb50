#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for a few seconds from its seeds: the smoke run `.ci/run`
# makes (RELIABILITY.md has the long runs, which use `cargo +nightly fuzz run -O`).
#
# The build is the one `cargo fuzz build --dev --sanitizer none` makes (the same
# sanitizer-coverage instrumentation, `--cfg fuzzing`, debug assertions), done with plain
# cargo so that it needs neither cargo-fuzz nor a nightly toolchain, and without debug info:
# a smoke run needs the coverage feedback and the checks, not a debugger, and the build is most
# of its time. Exits non-zero when a target fails (a panic, a failed check, a timeout, or a
# leak of more than 2 GB), after running every target.
#
# Usage: scripts/fuzz-smoke.sh [SECONDS per target, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3}
host=$(rustc -vV | sed -n 's/^host: //p')
flags=(
    -Cpasses=sancov-module
    -Cllvm-args=-sanitizer-coverage-level=4
    -Cllvm-args=-sanitizer-coverage-inline-8bit-counters
    -Cllvm-args=-sanitizer-coverage-pc-table
    -Cllvm-args=-sanitizer-coverage-trace-compares
    --cfg fuzzing
    -Cllvm-args=-simplifycfg-branch-fold-threshold=0
    -Cllvm-args=-sanitizer-coverage-stack-depth
    -Cdebug-assertions
)
python3 scripts/fuzz-seeds.py
# --target keeps RUSTFLAGS off build scripts and proc macros, as cargo fuzz does.
RUSTFLAGS="${flags[*]}" CARGO_PROFILE_DEV_DEBUG=false \
    cargo build --manifest-path fuzz/Cargo.toml --target "$host" --bins \
    --target-dir fuzz/target/smoke
bin=fuzz/target/smoke/$host/debug
failed=()
for target in $(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^tool-sdk-fuzz$'); do
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    if "$bin/$target" "fuzz/corpus/$target" -max_total_time="$seconds" -rss_limit_mb=2048 \
        -timeout=20 -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$target/" \
        > "fuzz/artifacts/$target/smoke.log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz/artifacts/$target/smoke.log")
        echo "fuzz smoke: $target ok, $runs executions in ${seconds}s"
    else
        echo "fuzz smoke: $target FAILED; its log:"
        tail -n 40 "fuzz/artifacts/$target/smoke.log"
        failed+=("$target")
    fi
done
if ((${#failed[@]})); then
    echo "fuzz smoke: ${#failed[@]} target(s) failed: ${failed[*]} (inputs in fuzz/artifacts/)"
    exit 1
fi
