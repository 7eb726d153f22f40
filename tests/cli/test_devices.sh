#!/usr/bin/env bash
# test_devices.sh — two workers on one GPU (--devices 0,0) give the rows of one
# worker (--devices 0): the same pairs, statuses and order, whichever worker
# finished first. Exit 77 (skipped) without a device.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

"$k" check nms --sweep smoke --devices 0 -q -o "$tmp/one.csv" >"$tmp/one.log" 2>&1
rc=$?
if [[ $rc -eq 3 ]]; then
    echo "no CUDA device: skipped"
    exit 77
fi
"$k" check nms --sweep smoke --devices 0,0 -q -o "$tmp/two.csv" >"$tmp/two.log" 2>&1
rc2=$?
check "the exit codes agree ($rc, $rc2)" test "$rc" -eq "$rc2"

# op, variant, params, mode, status and the pair index (the schema's last column).
rows() { grep -v '^#' "$1" | awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $4 "," $5 "," $NF }'; }
rows "$tmp/one.csv" >"$tmp/one.rows"
rows "$tmp/two.csv" >"$tmp/two.rows"
check "the same rows in the same order" cmp -s "$tmp/one.rows" "$tmp/two.rows"
check "rows were made" test -s "$tmp/one.rows"
check "the GPU is listed once" test "$(grep -c '^# gpu:' "$tmp/two.csv")" -eq 1
[[ $fail -eq 0 ]] || diff "$tmp/one.rows" "$tmp/two.rows" | head -10
finish devices
