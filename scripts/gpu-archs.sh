#!/usr/bin/env bash
# gpu-archs.sh — on a GPU machine: does kbench behave the same whatever
# architectures it was built for?
#   1. the fat build (KB_FAT_BUILD: sm_80..120) against this machine's own
#      build: each op's default sweep timed with both, `kbench compare` of
#      the two CSVs (the share of SAME device rows is the verdict: host
#      variants run the same CPU code in both builds, and their rows are
#      counted apart, their spread being the CPU's);
#   2. a build for compute_80 alone (PTX, compiled for this GPU at load): on
#      a newer GPU the variants that need newer code (clusters, wgmma) are
#      UNSUPPORTED rows naming the feature; no row is ERROR or CRASH;
#   3. a build with no code for this GPU (sm_80 machine code alone, on a
#      GPU that is not 8.x): every row UNSUPPORTED, saying how to rebuild.
#
#   OUT=DIR scripts/gpu-archs.sh [OP...]       (default: every op)
#   KB_STAGES="compare" KB_MAX_TIME=0.2 scripts/gpu-archs.sh nms
# Writes $OUT/archs.md (the tables) and archs.tar.gz (CSVs, logs). Exit 1 when
# a check fails: fewer than KB_MIN_SAME percent (default 95) SAME device rows, or an
# ERROR/CRASH row or a PASS row where none may run.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
source scripts/gpu-lib.sh
# KB_STAGES picks among "compare old" (default both): compare is 1. above, old
# 2. and 3. Build folders: build (this machine's GPU), build-fat, build-sm80,
# build-sm80real; ones already built are reused.
OUT=${OUT:-results/gpu-archs}
compare_defaults
STAGES=" ${KB_STAGES:-compare old} "
want() { [[ "$STAGES" == *" $1 "* ]]; }
outputs archs.md archs.tar.gz
status=0

build() { # build DIR [cmake args]: configure once, then build kbench
    local dir=$1
    shift
    local t0=$SECONDS
    if ! { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" &&
        ninja -C "$dir" kbench; } >"$work/build-$(basename "$dir").log" 2>&1; then
        say "build $dir: FAILED"
        grep -E "error|FAILED" "$work/build-$(basename "$dir").log" | head -20 | tee -a "$summary"
        return 1
    fi
    say "build $dir ($(grep -m1 CMAKE_CUDA_ARCHITECTURES: "$dir/CMakeCache.txt" | cut -d= -f2)):" \
        "$((SECONDS - t0)) s, $(grep -c warning "$work/build-$(basename "$dir").log") warning line(s)"
}

ops=("$@")
if want compare; then
    build build || exit 1
    build build-fat -DKB_FAT_BUILD=ON || exit 1
    [ ${#ops[@]} -eq 0 ] && mapfile -t ops < <(build/kbench list --names | grep -v /)
    say ""
    say "## fat build against this machine's build: default sweeps, --max-time $MAX_TIME"
    say ""
    say "| op | rows | SAME | other verdicts | host rows SAME |"
    say "|---|---:|---:|---|---:|"
    total=0 same=0 htotal=0 hsameall=0
    for op in "${ops[@]}"; do
        for b in build build-fat; do
            "$b/kbench" run "$op" --sweep default --max-time "$MAX_TIME" -q \
                -o "$work/$op.$(basename "$b").csv" >"$work/$op.$(basename "$b").log" 2>&1 ||
                status=1
        done
        build-fat/kbench compare "$work/$op.build.csv" "$work/$op.build-fat.csv" --all \
            --format md >"$work/compare-$op.md" 2>&1
        compare_counts "$op" "$work/compare-$op.md" "$work/$op.build.csv"
        rows=$cc_rows s=$cc_same other=$cc_other hrows=$cc_host_rows hsame=$cc_host_same
        say "| $op | $rows | $s | ${other:--} | $hsame of $hrows |"
        total=$((total + rows)) same=$((same + s))
        htotal=$((htotal + hrows)) hsameall=$((hsameall + hsame))
        pack
    done
    dtotal=$((total - htotal)) dsame=$((same - hsameall))
    pct=$((dtotal ? 100 * dsame / dtotal : 0))
    say ""
    say "SAME: $same of $total rows; device rows $dsame of $dtotal ($pct%; at least" \
        "$MIN_SAME% wanted); host rows (CPU code, the same in both builds) $hsameall of $htotal"
    [ "$pct" -ge "$MIN_SAME" ] || status=1
fi

if want old; then
    [ ${#ops[@]} -eq 0 ] && mapfile -t ops < <(build/kbench list --names 2>/dev/null | grep -v /)
    [ ${#ops[@]} -eq 0 ] && ops=(preprocess deform_conv2d nms topk rpn_proposals yolo_decode)
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
    say ""
    say "## older code on this GPU (compute capability $cc)"
    if build build-sm80 -DCMAKE_CUDA_ARCHITECTURES=80-virtual; then
        build-sm80/kbench check all --sweep smoke -q -o "$work/check-sm80.csv" \
            >"$work/check-sm80.log" 2>&1
        say "compute_80 PTX: $(tail -1 "$work/check-sm80.log")"
        bad=$(grep -cE ",(ERROR|CRASH|TIMEOUT)," "$work/check-sm80.csv")
        say "  ERROR/CRASH/TIMEOUT rows: $bad"
        [ "$bad" -eq 0 ] || status=1
        grep -E ",UNSUPPORTED," "$work/check-sm80.csv" | cut -d, -f1,2,6- | grep -E "needs" |
            sed -E 's/^([^,]*),([^,]*),"?([^"]*).*/\1\/\2: \3/' | sort -u -t: -k1,1 |
            head -20 | sed 's/^/  /' | tee -a "$summary"
    else
        status=1
    fi
    if [ "${cc:0:1}" != 8 ] && build build-sm80real -DCMAKE_CUDA_ARCHITECTURES=80-real; then
        build-sm80real/kbench check nms --sweep smoke -q -o "$work/check-sm80real.csv" \
            >"$work/check-sm80real.log" 2>&1
        say "sm_80 machine code only: $(tail -1 "$work/check-sm80real.log")"
        ran=$(grep -cvE "^#|^op,|,UNSUPPORTED," "$work/check-sm80real.csv")
        say "  rows that are not UNSUPPORTED: $ran"
        grep -m1 ",UNSUPPORTED," "$work/check-sm80real.csv" | cut -d, -f6- | sed 's/^/  /' |
            tee -a "$summary"
        [ "$ran" -eq 0 ] || status=1
    fi
fi
pack
exit $status
