#!/usr/bin/env bash
# test_scale.sh — many GPUs and many machines without a GPU (README "When one
# machine is not enough"): --devices usage, report keeping GPU models apart,
# --shard's partition, `kbench merge`, and scripts/slurm-sweep.sh under stub
# sbatch/srun.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

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
KB_NO_GNUPLOT=1 expect 0 "" -- report "$mixed" -o "$tmp/report-mixed"
report_md=$tmp/report-mixed/report.md
expect_file "$report_md" "gpu=NVIDIA_H100_80GB_HBM3"
expect_file "$report_md" "gpu=NVIDIA_A100-SXM4-80GB"

finish scale
