#!/usr/bin/env bash
# main.sh — the main job: build, then run the default preprocessing sweep on
# GPU 0, printing the table and writing results/preprocess.{csv,jsonl} and the
# plots under plots/ (gnuplot, where installed).
#
#   scripts/main.sh                      # preprocess, default sweep
#   scripts/main.sh nms --sweep smoke    # any op and kbench run options
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
op=${1:-preprocess}
[ $# -gt 0 ] && shift
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
mkdir -p results plots
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--sweep default)
rc=0
# --overwrite: the previous results are replaced once the first new row is
# written, so a run that makes no row (no GPU, exit 3) leaves them as they were.
./build/kbench run "$op" "${args[@]}" -o "results/$op.csv" -o "results/$op.jsonl" --overwrite ||
    rc=$?
# Plots only of rows this run wrote (exit 0: all passed, 1: some failed).
if [ $rc -le 1 ] && [ -s "results/$op.csv" ]; then
    if command -v gnuplot >/dev/null; then
        ./build/kbench plot "results/$op.csv" -o plots
    else
        echo "gnuplot not installed: skipping plots (kbench plot results/$op.csv later)"
    fi
fi
exit $rc
