#!/usr/bin/env bash
# ncu-split.sh — on a GPU machine: where the time of the hot cases goes.
# Per-kernel duration, occupancy and warp-stall split (Nsight Compute) of the
# cases docs/perf-nms.md and docs/perf-topk.md reason about, and the SASS lines
# of blockwalk's walk kernel with the most stall samples.
#
#   OUT=/tmp/prof KB_BUILD=build scripts/ncu-split.sh
#
# Writes $OUT/ncu-<name>.txt per case and $OUT/walk<n>-sass.txt. ncu locks the
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

# Stall samples per SASS line: blockwalk's walk at 25200 boxes, the small walk at 1000.
sass() { # name, kernel regex, kbench check args...
    local name=$1 kernel=$2
    shift 2
    if ncu --set full --import-source no -k "regex:$kernel" -c 1 -f -o "$OUT/$name" \
        "$KB" check "$@" --no-isolate >"$OUT/$name-ncu.log" 2>&1; then
        ncu --import "$OUT/$name.ncu-rep" --page source --print-source sass --csv \
            >"$OUT/$name-sass.csv" 2>&1
        python3 scripts/sass-stalls.py "$OUT/$name-sass.csv" >"$OUT/$name-sass.txt"
        head -45 "$OUT/$name-sass.txt"
        rm -f "$OUT/$name.ncu-rep" "$OUT/$name-sass.csv" "$OUT/$name-ncu.log"
    else
        tail -5 "$OUT/$name-ncu.log"
    fi
}
sass walk25200 walk_blocks nms -v blockwalk -a n=25200 -a iou=0.5
sass walk1000 walk_small nms -v blockwalk -a n=1000 -a iou=0.5
