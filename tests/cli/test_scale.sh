#!/usr/bin/env bash
# test_scale.sh — many GPUs and many machines without a GPU (README "When one
# machine is not enough"): --devices usage, report keeping GPU models apart,
# --shard's partition. `kbench merge` is test_merge.sh's, scripts/slurm-sweep.sh
# test_slurm.sh's.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
report_rc=0
command -v gnuplot >/dev/null || report_rc=4

# ---- --devices ----
expect 2 "--devices x: expected an integer" -- run nms --devices x
expect 2 "--devices ,: expected all or N" -- run nms --devices ,
expect 2 "--device 0,1: expected one ordinal" -- run nms --device 0,1
expect 2 "more than one GPU needs isolation" -- run nms --devices 0,1 --no-isolate
expect 2 "more than one GPU needs isolation" -- check nms --devices all --no-isolate
expect 0 "--devices all\|N,\.\." -- run --help
expect 0 "--mixed-devices" -- check --help

# ---- report: rows of two GPU models in one file stay apart ----
# Two '# gpu:' lines and a device column: the same case measured on two models.
mixed=$tmp/mixed.csv
{
    grep '^#' "$d/nms.csv"
    echo "# gpu: NVIDIA A100-SXM4-80GB (GPU-00000000-0000-0000-0000-0000000000a1) cc 8.0, 108 SMs, L2 40 MiB | driver 12.4 runtime 12.4 | clocks max SM 1410 MHz mem 1593 MHz, SM now 1410 MHz | peaks: copy 1800 GB/s, sgemm 19000 GFLOP/s"
    grep -v '^#' "$d/nms.csv" | head -1 | sed 's/$/,device,pair/'
    h100=GPU-6f1c2a9e-4b7d-1c55-9a0e-3d2f8b61c0aa
    grep -v '^#' "$d/nms.csv" | sed -n 2,3p | sed "s/\$/,$h100,0/"
    grep -v '^#' "$d/nms.csv" | sed -n 2,3p | sed 's/$/,GPU-00000000-0000-0000-0000-0000000000a1,1/'
} >"$mixed"
# Without gnuplot the pages are still written (exit 4: no plots).
expect "$report_rc" "" -- report "$mixed" -o "$tmp/report-mixed"
report_md=$tmp/report-mixed/report.md
expect_file "$report_md" "gpu=NVIDIA_H100_80GB_HBM3"
expect_file "$report_md" "gpu=NVIDIA_A100-SXM4-80GB"

# ---- --shard: N shards' --dry-run pairs are the sweep's, each once ----
expect 2 "--shard 2/2: expected I/N" -- run nms --shard 2/2 --dry-run
expect 0 "shard 1/3 of nms: [0-9]+ of the sweep's [0-9]+ pairs, sweep [0-9a-f]{16}" -- \
    run nms --shard 1/3 --dry-run
for op in $("$k" list --names | grep -v /); do
    for sweep in default full; do
        "$k" list "$op" | grep -Eq "^    $sweep " || continue
        "$k" run "$op" --sweep "$sweep" --dry-run 2>/dev/null | sort >"$tmp/whole" || continue
        for n in 1 2 3 7; do
            : >"$tmp/parts"
            for ((i = 0; i < n; i++)); do
                "$k" run "$op" --sweep "$sweep" --shard "$i/$n" --dry-run 2>/dev/null >>"$tmp/parts"
            done
            sort "$tmp/parts" >"$tmp/parts.sorted"
            check "$op/$sweep: $n shards hold the sweep's pairs, each once" \
                cmp -s "$tmp/whole" "$tmp/parts.sorted"
        done
    done
done

# ---- more shards than pairs: an empty shard writes its file, merge joins it ----
sel=(check nms -v cpu_greedy,cpu_bitmask)
np=$("$k" "${sel[@]}" --dry-run 2>/dev/null | wc -l)
sp=$tmp/shards
mkdir -p "$sp"
for ((i = 0; i < np + 4; i++)); do
    "$k" "${sel[@]}" --shard "$i/$((np + 4))" -q -o "$sp/p$i.csv" >"$tmp/shard.log" 2>&1 ||
        { echo "shard $i: exit $?"; cat "$tmp/shard.log"; }
done
check "each of $((np + 4)) shards of a $np-pair sweep writes its file" \
    test "$(ls "$sp" | grep -c '^p[0-9]*\.csv$')" -eq $((np + 4))
last=$sp/p$((np + 3)).csv
expect_file "$last" "^# shard: $((np + 3))/$((np + 4)) of nms: 0 of the sweep's $np pairs, sweep [0-9a-f]{16}, 0 rows$"
expect_file "$last" "^op,variant,params,"
check "an empty shard's file holds no row" test "$(grep -v '^#' "$last" | wc -l)" -eq 1
"$k" "${sel[@]}" --shard "$((np + 3))/$((np + 4))" -q -o "$sp/e.jsonl" -o "$sp/e.md" >/dev/null 2>&1
expect_file "$sp/e.jsonl" "\"shard\":\"$((np + 3))/$((np + 4)) of nms: 0 of the sweep's $np pairs"
expect_file "$sp/e.md" "^> shard: $((np + 3))/$((np + 4)) of nms: 0 of"
expect 0 "$np rows of $((np + 4)) shards of nms" -- merge "$sp"/p*.csv -o "$tmp/merged.csv"
"$k" "${sel[@]}" -q -o "$tmp/whole.csv" >/dev/null 2>&1
check "the merged shards hold the unsharded run's pairs" \
    cmp -s <(grep -v '^#' "$tmp/whole.csv" | cut -d, -f1-3 | sort) \
    <(grep -v '^#' "$tmp/merged.csv" | cut -d, -f1-3 | sort)

finish scale
