#!/usr/bin/env bash
# gpu-multi.sh — on a machine with several GPUs: does `--devices all` give
# the rows one GPU gives, in less wall time? Each op's default sweep runs
# twice, with `--devices all` and with `--devices 0` (the same build), each
# timed by the wall clock; `kbench compare` of the two CSVs judges them.
#
#   OUT=DIR scripts/gpu-multi.sh [OP...]          (default: every op)
#   KB_MAX_TIME=0.3 KB_MIN_SAME=95 scripts/gpu-multi.sh nms topk
#
# Writes $OUT/multi.md (per op: rows, wall time on 1 and on N GPUs, the
# speed-up, SAME device rows; host rows counted apart, their spread being
# the CPU's) and multi.tar.gz (both CSVs of every op, their logs and the
# compare reports). Exit 0 when every run succeeded and at least KB_MIN_SAME
# percent of the device rows are SAME; 1 otherwise; 2 with fewer than two
# GPUs or no build. KB_BUILD names the build folder (default build; built
# there when missing).
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
source scripts/gpu-lib.sh
OUT=${OUT:-results/gpu-multi}
compare_defaults
BUILD=${KB_BUILD:-build}
ngpu=$(nvidia-smi --query-gpu=uuid --format=csv,noheader 2>/dev/null | grep -c GPU-)
if [ "${ngpu:-0}" -lt 2 ]; then
    echo "gpu-multi.sh: needs a machine with two or more GPUs (nvidia-smi lists ${ngpu:-0})" >&2
    exit 2
fi
if [ ! -x "$BUILD/kbench" ]; then
    { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C "$BUILD" kbench; } \
        >/dev/null || exit 2
fi
k=$BUILD/kbench
outputs multi.md multi.tar.gz
ops=("$@")
[ ${#ops[@]} -eq 0 ] && mapfile -t ops < <("$k" list --names | grep -v /)
status=0
# timed_run OP DEVICES: OP's default sweep on those GPUs; its wall time (ms) in $ms
timed_run() {
    local t0
    t0=$(date +%s%3N)
    "$k" run "$1" --sweep default --max-time "$MAX_TIME" --devices "$2" -q \
        -o "$work/$1.$2.csv" >"$work/$1.$2.log" 2>&1 || status=1
    ms=$(($(date +%s%3N) - t0))
}
secs() { awk -v a="$1" 'BEGIN {printf "%.1f", a / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }

say "## --devices all ($ngpu GPUs) against --devices 0: default sweeps, --max-time $MAX_TIME"
say ""
say "| op | rows | 1 GPU (s) | $ngpu GPUs (s) | speed-up | device rows SAME | other verdicts | host rows SAME |"
say "|---|---:|---:|---:|---:|---:|---|---:|"
total=0 same=0 htotal=0 hsame_all=0 wall1=0 walln=0
for op in "${ops[@]}"; do
    timed_run "$op" 0
    one=$ms
    timed_run "$op" all
    many=$ms
    "$k" compare "$work/$op.0.csv" "$work/$op.all.csv" --all --format md \
        >"$work/compare-$op.md" 2>&1
    compare_counts "$op" "$work/compare-$op.md" "$work/$op.0.csv"
    dev_rows=$((cc_rows - cc_host_rows)) dev_same=$((cc_same - cc_host_same))
    say "| $op | $cc_rows | $(secs "$one") | $(secs "$many") | $(ratio "$one" "$many")x |" \
        "$dev_same of $dev_rows | ${cc_other:--} | $cc_host_same of $cc_host_rows |"
    total=$((total + dev_rows)) same=$((same + dev_same))
    htotal=$((htotal + cc_host_rows)) hsame_all=$((hsame_all + cc_host_same))
    wall1=$((wall1 + one)) walln=$((walln + many))
    pack
done
pct=$((total ? 100 * same / total : 0))
say ""
say "wall: $(secs "$wall1") s on GPU 0, $(secs "$walln") s on $ngpu GPUs" \
    "($(ratio "$wall1" "$walln")x); device rows SAME: $same of $total ($pct%;" \
    "at least $MIN_SAME% wanted); host rows SAME: $hsame_all of $htotal"
[ "$pct" -ge "$MIN_SAME" ] || status=1
pack
exit $status
