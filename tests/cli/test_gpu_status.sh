#!/usr/bin/env bash
# test_gpu_status.sh — scripts/gpu-lib.sh's failed_rows, by which
# gpu-check.sh's run stage tells this run's failures from the peers': the rows
# of a kbench CSV that FAILed, ERRORed, CRASHed, TIMEd OUT or were NOT_RUN,
# counted as built-in and peer (variant peer:NAME), by the status column alone.
source "$(dirname "$0")/cli_lib.sh"
source "$src/scripts/gpu-lib.sh"
counts() { check "$1: failed_rows $2 is '$3'" test "$(failed_rows "$2")" = "$3"; }
# A baseline: every built-in row PASS, 24 peer rows FAIL (their rounding rules).
counts "peers' FAILs only" "$src/results/baselines/h200/preprocess.csv" "0 24"
counts "a built-in FAIL" "$d/nms_broken.csv" "2 0"
counts "all PASS" "$src/results/baselines/h200/rpn_proposals.csv" "0 0"
# Every failing status counts; a note, a reason or a comment that says FAIL,
# in quotes with commas, does not.
cat >"$tmp/mixed.csv" <<'CSV'
# kbench 0000000 | 2026-01-01T00:00:00Z | host test
# note: FAIL,FAIL,FAIL,FAIL,FAIL
op,variant,params,mode,status,reason,samples,median_us,note
nms,rounds,n=64,cold,PASS,,10,1.0,"a note, FAIL, with commas"
nms,blockwalk,n=64,cold,ERROR,"launch failed, FAIL",0,,
nms,my_plugin,n=64,cold,CRASH,signal 11,0,,
nms,cpu_greedy,n=64,cold,TIMEOUT,,0,,
nms,rounds,n=99,cold,NOT_RUN,,0,,
nms,peer:torchvision_nms,n=64,cold,FAIL,"keep: 3 of 5, FAIL",10,2.0,
nms,peer:cvcuda_nms,n=64,cold,UNSUPPORTED,not installed,0,,
nms,peer:opencv_cpu,n=64,cold,TIMEOUT,,0,,
CSV
counts "each failing status, by column" "$tmp/mixed.csv" "4 2"
# gpu-check.sh's run stage decides by it.
check "gpu-check.sh's run stage reads failed_rows" grep -q 'failed_rows "$work/$op.csv"' \
    "$src/scripts/gpu-check.sh"
finish test_gpu_status
