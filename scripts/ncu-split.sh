#!/usr/bin/env bash
# ncu-split.sh — on a GPU machine: where the time of the hot cases goes.
# Per-kernel duration, occupancy and warp-stall split (Nsight Compute) of the
# cases docs/perf-nms.md and docs/perf-topk.md reason about, and the SASS lines
# of blockwalk's walk kernel with the most stall samples.
#
#   OUT=/tmp/prof KB_BUILD=build scripts/ncu-split.sh
#
# Writes $OUT/ncu-<name>.txt per case and $OUT/walk-sass.txt. ncu locks the
# clocks to base (its default), so durations read ~10-20% above cold-mode runs.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-results/ncu}
BUILD=${KB_BUILD:-build}
KB="$BUILD/kbench"
mkdir -p "$OUT"
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats)

split() { # name, kbench check args...
    local name=$1
    shift
    ncu "${sections[@]}" "$KB" check "$@" --no-isolate >"$OUT/ncu-$name.txt" 2>&1
    echo "== $name"
    grep -E "^  [A-Za-z_].*\(|Duration|Warp Cycles Per Issued|Achieved Occupancy|Registers Per" \
        "$OUT/ncu-$name.txt" | head -40
}

split nms1000 nms -v blockwalk -a n=1000 -a iou=0.5
split topk-rpn5 topk -v radix_select -a segments=rpn5 -a k=1000

# Stall samples per SASS line of the walk at 25200 boxes.
if ncu --set full --import-source no -k regex:walk_blocks -c 1 -f -o "$OUT/walk" \
    "$KB" check nms -v blockwalk -a n=25200 -a iou=0.5 --no-isolate >"$OUT/walk-ncu.log" 2>&1; then
    ncu --import "$OUT/walk.ncu-rep" --page source --print-source sass --csv \
        >"$OUT/walk-sass.csv" 2>&1
    python3 - "$OUT/walk-sass.csv" >"$OUT/walk-sass.txt" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if any("Source" in c for c in r))
cols, body = rows[head], rows[head + 1:]
def col(name):
    return next((i for i, c in enumerate(cols) if c.startswith(name)), None)
src, samp = col("Source"), col("Warp Stall Sampling (All")
num = lambda r: float((r[samp] or "0").replace(",", "")) if samp is not None and len(r) > samp else 0
total = sum(num(r) for r in body) or 1
print("columns:", cols)
for r in sorted(body, key=num, reverse=True)[:40]:
    print(f"{100 * num(r) / total:5.1f}%  {r[src] if src is not None else r}")
PY
    head -45 "$OUT/walk-sass.txt"
    rm -f "$OUT/walk.ncu-rep" "$OUT/walk-sass.csv" "$OUT/walk-ncu.log"
else
    tail -5 "$OUT/walk-ncu.log"
fi
