#!/usr/bin/env bash
# Kernel time on a device (`--timer kernels`): each sample's CUPTI kernel
# records land in that sample's window. A variant of one launch (nms/rounds
# and nms/blockwalk at 1000 boxes) has one kernel a sample and its kernel
# sum equal to its span; one of several launches (nms/rounds at 25200:
# sort, masks, rounds) more than one, its sum no more than its span (one
# stream); every span inside its event window (span_us <= median_us) and
# every kernel time above zero. GPU: exits 77 (skipped) without a device.
set -u
k=${KBENCH:-build/kbench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$k" run nms -v rounds,blockwalk -a n=1000 --timer kernels --max-time 0.05 \
    -o "$dir/one.csv" >"$dir/log" 2>&1
rc=$?
[ $rc -eq 3 ] && { echo "no CUDA device: skipped"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: run exited $rc"; cat "$dir/log"; exit 1; }
if grep -q "kernel timer (--timer kernels): unavailable" <("$k" info 2>&1); then
    echo "CUPTI unavailable here: skipped"
    exit 77
fi
"$k" run nms -v rounds -a n=25200 --timer kernels --max-time 0.05 -o "$dir/many.csv" \
    >"$dir/log" 2>&1 || { echo "FAIL: run exited $?"; cat "$dir/log"; exit 1; }

# rows FILE LAUNCHES: every data row's kernel columns against the rules
# above; LAUNCHES "1" (exactly one kernel, sum == span) or "many" (> 1).
rows() {
    awk -F, -v launches="$2" '
        /^#/ { next }
        /^op,/ { for (i = 1; i <= NF; i++) col[$i] = i; tail = NF; next }
        {
            # the columns before the free-text ones by name, the kernel
            # columns by their place from the end (a note may hold commas)
            v = $col["variant"]; med = $col["median_us"] + 0
            ku = $(NF - tail + col["kernel_us"]); sp = $(NF - tail + col["span_us"])
            nk = $(NF - tail + col["kernels"]) + 0; n++
            if ($col["status"] != "PASS") { print "FAIL: " v ": " $col["status"]; bad++ }
            if (ku == "" || ku + 0 <= 0) { print "FAIL: " v ": kernel_us \"" ku "\""; bad++ }
            if (sp + 0 > med) { print "FAIL: " v ": span " sp " us outside its event window " med; bad++ }
            if (launches == "1" && (nk != 1 || ku + 0 != sp + 0)) {
                print "FAIL: " v ": one launch, but " nk " kernels, sum " ku " vs span " sp; bad++
            }
            if (launches == "many" && (nk < 2 || ku + 0 > sp * 1.001)) {
                print "FAIL: " v ": several launches, but " nk " kernels, sum " ku " vs span " sp; bad++
            }
        }
        END { if (!n) { print "FAIL: no rows"; bad++ } exit bad > 0 }' "$1"
}
fail=0
rows "$dir/one.csv" 1 || fail=1
rows "$dir/many.csv" many || fail=1
[ $fail -eq 0 ] || cat "$dir/one.csv" "$dir/many.csv"
exit $fail
