#!/usr/bin/env bash
# A device variant that ends in a host walk (KB_HOST_SYNC: nms/bitmask_host)
# is timed in --host-repeats repeats like a host variant: its row says how
# many and their spread; a variant all on the device (nms/bitmask_gpu) leaves
# both columns empty. GPU: exits 77 (skipped) without a device.
set -u
k=${KBENCH:-build/kbench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$k" run nms -v bitmask_host,bitmask_gpu -a n=1000 --host-repeats 3 --max-time 0.05 \
    -o "$dir/rows.csv" >"$dir/log" 2>&1
rc=$?
[ $rc -eq 3 ] && { echo "no CUDA device: skipped"; exit 77; }
fail=0
[ $rc -eq 0 ] || { echo "FAIL: run exited $rc"; cat "$dir/log"; exit 1; }
# the last three columns: repeats, repeat_spread_pct, interleaved
grep -qE "^nms,bitmask_host,.*,3,[0-9.]+,no$" "$dir/rows.csv" ||
    { echo "FAIL: bitmask_host's row does not carry 3 repeats and a spread"; fail=1; }
awk -F, '$1 == "nms" && $2 == "bitmask_gpu" && $(NF-2) == "" && $(NF-1) == "" {n++} END {exit !n}' \
    "$dir/rows.csv" ||
    { echo "FAIL: bitmask_gpu's row has repeats or a spread"; fail=1; }
[ $fail -eq 0 ] || grep -E "^(op|nms)," "$dir/rows.csv"
exit $fail
