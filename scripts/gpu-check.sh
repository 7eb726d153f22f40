#!/usr/bin/env bash
# gpu-check.sh — on a GPU machine: build, run the whole test suite, check every
# op's smoke sweep with fuzzed cases, and time the default sweeps.
#
#   scripts/gpu-check.sh                 # every op
#   scripts/gpu-check.sh preprocess nms  # only these ops (tests: all)
#   KB_SWEEP=smoke KB_MAX_TIME=0.5 scripts/gpu-check.sh topk
#
# Everything lands in $OUT (default results/gpu-check): summary.md (the tables),
# ctest.log, and gpu-check.tar.gz with every CSV, JSON-lines file and log.
# The device tool brings back at most 8 files from $OUT: keep it that way.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-results/gpu-check}
SWEEP=${KB_SWEEP:-default}
MAX_TIME=${KB_MAX_TIME:-1}
BUILD=${KB_BUILD:-build}
work=$(mktemp -d)
mkdir -p "$OUT"
summary="$OUT/summary.md"
: >"$summary"
say() { echo "$@" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >"$work/nvidia-smi.csv" 2>&1
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log"; exit 1; }
start=$(date +%s)
if ! ninja -C "$BUILD" >"$work/build.log" 2>&1; then
    grep -E "error|FAILED" "$work/build.log" | head -40
    tar -czf "$OUT/gpu-check.tar.gz" -C "$work" .
    exit 1
fi
say "build: $(( $(date +%s) - start )) s, $(grep -c warning "$work/build.log") warning line(s)"
"$BUILD/kbench" info | tee "$work/info.txt" | tee -a "$summary"

ops=("$@")
[ ${#ops[@]} -eq 0 ] && mapfile -t ops < <("$BUILD/kbench" list --names | grep -v /)

start=$(date +%s)
ctest --test-dir "$BUILD" -j 8 --output-on-failure --timeout 600 >"$OUT/ctest.log" 2>&1
say "ctest: $(( $(date +%s) - start )) s: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
grep -E "\*\*\*Failed|\*\*\*Skipped|Not Run|Timeout" "$OUT/ctest.log" | tee -a "$summary"

status=0
for op in "${ops[@]}"; do
    say ""
    say "## $op"
    "$BUILD/kbench" check "$op" --sweep smoke --fuzz 30 --format md -o "$work/check-$op.csv" \
        >"$work/check-$op.md" 2>&1 || status=1
    tail -2 "$work/check-$op.md" | tee -a "$summary"
    grep -E "\| (FAIL|ERROR|CRASH|TIMEOUT) \|" "$work/check-$op.md" | head -20 | tee -a "$summary"
    "$BUILD/kbench" run "$op" --sweep "$SWEEP" --max-time "$MAX_TIME" --format md \
        -o "$work/$op.csv" -o "$work/$op.jsonl" 2>&1 | grep -v "^> " | tee -a "$summary"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
# ---- peers (issue 6): torchvision / PyTorch / OpenCV on the same cases and inputs ----
# <op>-peers.csv and peers-<op>.log land beside <op>.csv; KB_NO_PEERS=1 skips them.
if [ -z "${KB_NO_PEERS:-}" ]; then
    say ""
    say "## peers"
    KB_SWEEP="$SWEEP" KB_MAX_TIME="$MAX_TIME" scripts/peers.sh "$BUILD/kbench" "$work" "${ops[@]}" \
        2>&1 | tee -a "$summary"
fi
# ---- end of peers ----
# The three measurement modes on one case, side by side.
say ""
say "## modes: preprocess n=16 1080p -> 640 bilinear"
for mode in cold hot graph; do
    "$BUILD/kbench" run preprocess -a n=16 -a interp=bilinear --mode "$mode" --max-time "$MAX_TIME" \
        --format md -o "$work/modes-$mode.csv" 2>&1 | grep -E "^\| bilinear" | tee -a "$summary"
done

# The README's Nsight Compute line, to prove the NVTX filter isolates one variant.
if [ -n "${KB_NCU:-}" ] && command -v ncu >/dev/null; then
    ncu --nvtx --nvtx-include "regex:.*bilinear_vec.*/" --clock-control none -c 3 \
        "$BUILD/kbench" run preprocess -v bilinear_vec -a n=16 --no-check --min-samples 1 \
        --max-time 0 >"$work/ncu.log" 2>&1
    say "ncu (README line): $(grep -cE '^  void pp_vec' "$work/ncu.log") pp_vec kernel(s) profiled," \
        "$(grep -cE '^  [a-z_]+.*\(' "$work/ncu.log") kernel(s) in all"
    grep -E "^  [a-zA-Z_].*\(|==ERROR|==WARNING" "$work/ncu.log" | head -8 | tee -a "$summary"
fi
# The device tool brings back at most 8 files: every CSV and log goes in one tarball.
tar -czf "$OUT/gpu-check.tar.gz" -C "$work" .
exit $status
