#!/usr/bin/env bash
# sanitize.sh — compute-sanitizer memcheck, racecheck, initcheck and synccheck
# over every variant of every op on its smoke sweep: `kbench check OP -v
# VARIANT --sweep smoke --no-isolate` (correctness runs only, no timing; in one
# process, so that the tool sees every launch). One run per variant and tool,
# KB_SAN_JOBS at a time. racecheck checks the first KB_SAN_RACE_CASES cases of
# each smoke sweep (default 2): on an H100, 28 racecheck runs at once got
# through 0 (rpn_proposals) to 36 (deform_conv2d) smoke rows per variant in
# 100 s; whole smoke sweeps would take far longer than the ~6 minutes this
# script is meant to take. Smoke sweeps therefore put small cases first
# (rpn_proposals: a 128x160 image with 3 levels; its 800x1344 case could not
# finish under racecheck in 170 s). deform_conv2d's explicit_nhwc runs once
# more with `-a im2col=window`: auto does not pick the windowed im2col on
# smoke-sized cases. On a GPU machine:
#
#   scripts/sanitize.sh                          # every op x the 4 tools
#   scripts/sanitize.sh nms topk                 # only these ops
#   KB_SAN_TOOLS="memcheck synccheck" scripts/sanitize.sh preprocess
#
# KB_SAN_JOBS runs at once (default 16), KB_SAN_TIMEOUT seconds per run
# (default 150: a run killed there is a TIMEOUT, not clean; racecheck goes
# first, so the whole takes at most about 2 x 150 s plus the short runs), KB_BUILD the build
# folder (default build; kbench is built there when missing). Writes under
# $OUT (default results/sanitize): summary.md (a line per variant x tool, then
# the first reports of each run that is not clean) and sanitize.tar.gz (every
# tool log and kbench log). Exit 0 when every run is clean; 1 on any sanitizer
# report, kbench failure or timeout; 2 without compute-sanitizer or a build.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-results/sanitize}
BUILD=${KB_BUILD:-build}
TOOLS=${KB_SAN_TOOLS:-racecheck memcheck initcheck synccheck} # the slowest first
JOBS=${KB_SAN_JOBS:-16}
LIMIT=${KB_SAN_TIMEOUT:-150}
RACE_CASES=${KB_SAN_RACE_CASES:-2}
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$san" ] || { echo "sanitize.sh: compute-sanitizer not found"; exit 2; }
if [ ! -x "$BUILD/kbench" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        >/dev/null && ninja -C "$BUILD" kbench >/dev/null || { echo "sanitize.sh: build failed"; exit 2; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$OUT"
ops=("$@")
[ ${#ops[@]} -eq 0 ] && mapfile -t ops < <("$BUILD/kbench" list --names | grep -v /)

# One variant under one tool: the tool's log, kbench's log, a result line.
# An optional 4th argument names an axis setting (axis=value) to run the
# smoke sweep with.
run_one() {
    local op=$1 variant=$2 tool=$3 setting=${4:-} extra=() cases=() axes=()
    local name=$variant base="$work/$op.$variant.$tool"
    [ -n "$setting" ] && axes=(-a "$setting") name="$variant $setting" base="$work/$op.$variant.${setting//=/-}.$tool"
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    [ "$tool" = racecheck ] && cases=(--max-cases "$RACE_CASES")
    local t0=$SECONDS
    timeout -s KILL "$LIMIT" "$san" --tool "$tool" "${extra[@]}" --error-exitcode 99 \
        --print-limit 20 --log-file "$base.san.log" \
        "$BUILD/kbench" check "$op" -v "$variant" --sweep smoke "${axes[@]}" "${cases[@]}" --no-isolate -q -o "$base.csv" \
        >"$base.kbench.log" 2>&1
    local rc=$? result reports
    # Each report opens with one of these lines (memcheck, initcheck, racecheck, synccheck).
    reports=$(grep -cE "^========= (Invalid|Uninitialized|Host API|Error|Program hit|Barrier|Leaked|Race)" \
        "$base.san.log")
    case $rc in
    0) result=clean ;;
    99) result=REPORTS ;;
    137) result="TIMEOUT (${LIMIT} s)" ;;
    *) result="kbench exit $rc" ;;
    esac
    echo "| $op/$name | $tool | $result | $reports | $(grep -vc '^#' "$base.csv" 2>/dev/null) | $((SECONDS - t0)) |" \
        >"$base.result"
}

start=$SECONDS
for tool in $TOOLS; do
    for op in "${ops[@]}"; do
        mapfile -t variants < <("$BUILD/kbench" list --names | grep "^$op/" | cut -d/ -f2)
        for variant in "${variants[@]}"; do
            while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
            run_one "$op" "$variant" "$tool" &
        done
        # explicit_nhwc's windowed im2col, which auto does not pick on smoke-sized cases
        if [ "$op" = deform_conv2d ]; then
            while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
            run_one "$op" explicit_nhwc "$tool" im2col=window &
        fi
    done
done
wait

results=("$work"/*.result)
{
    echo "# compute-sanitizer over the smoke sweeps"
    echo
    echo "$("$san" --version | tail -1); $(nvidia-smi --query-gpu=name,driver_version \
        --format=csv,noheader 2>/dev/null); $JOBS at once, ${LIMIT} s each at most;" \
        "$((SECONDS - start)) s in all"
    echo
    echo "| variant | tool | result | reports | csv lines | seconds |"
    echo "|---|---|---|---:|---:|---:|"
    cat "${results[@]}"
} >"$OUT/summary.md"
# The first reports of each run that is not clean, so that the summary says what.
for f in "${results[@]}"; do
    grep -q "| clean |" "$f" && continue
    b=${f%.result}
    {
        echo
        echo "## $(basename "$b")"
        echo '```'
        grep -m 8 -A2 -E "^========= (Invalid|Uninitialized|Host API|Error|Program hit|Barrier|Leaked|Race)" \
            "$b.san.log" | grep -vE "Host Frame|Saved host"
        tail -3 "$b.kbench.log"
        echo '```'
    } >>"$OUT/summary.md"
done
tar -czf "$OUT/sanitize.tar.gz" -C "$work" .
clean=$(cat "${results[@]}" | grep -c "| clean |")
echo "sanitize.sh: $clean of ${#results[@]} runs clean ($((SECONDS - start)) s); see $OUT/summary.md"
cat "${results[@]}" | grep -v "| clean |"
[ "$clean" -eq ${#results[@]} ]
