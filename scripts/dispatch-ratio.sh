#!/usr/bin/env bash
# Dispatch overhead against a hand-written registry, robust to process-to-process noise: runs
# the `dispatch/{sdk,hand}/N` benchmarks RUNS times (a fresh process each, both sides measured
# in the same process), and prints every run's SDK / hand-written ratio per pool size and the
# median over runs. Not part of the test suite.
#
# Usage: scripts/dispatch-ratio.sh [RUNS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for run in $(seq 1 "$runs"); do
  cargo bench -q -p tool-registry --bench dispatch -- --warm-up-time 1 --measurement-time 3 \
    '^dispatch/(sdk|hand)/' 2>/dev/null |
    awk -v run="$run" '
      /^dispatch\/(sdk|hand)\// { name = $1 }
      /time:/ && name != "" {
        # ... time:   [low unit  median unit  high unit]
        for (i = 1; i <= NF; i++) if ($i == "time:") { value = $(i + 3); unit = $(i + 4) }
        if (unit == "µs") value *= 1000; else if (unit == "ms") value *= 1000000
        print run, name, value; name = ""
      }' >>"$out"
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
times = {}
for run, name, value in rows:
    _, side, size = name.split("/")
    times.setdefault((int(size), int(run)), {})[side] = float(value)
print(f"{'pool':>6}  {'sdk ns':>8}  {'hand ns':>8}  ratio (per run)")
for size in sorted({size for size, _ in times}):
    runs = [times[key] for key in sorted(times) if key[0] == size]
    ratios = [r["sdk"] / r["hand"] for r in runs if "sdk" in r and "hand" in r]
    sdk = statistics.median(r["sdk"] for r in runs)
    hand = statistics.median(r["hand"] for r in runs)
    listed = " ".join(f"{ratio:.2f}" for ratio in ratios)
    print(f"{size:>6}  {sdk:>8.0f}  {hand:>8.0f}  median {statistics.median(ratios):.2f}x  ({listed})")
PY
