#!/usr/bin/env bash
# Kernel time (`--timer kernels`) and host repeats through the binary, on a
# machine without a GPU: a libcupti that cannot be loaded is a line of
# `kbench info` with the dlopen error; a run of host variants with the timer
# on still runs, its kernel columns empty and its repeats written; compare
# judges kernel time where both rows have it and says how many fell back;
# report --timer kernels ranks by kernel time and says so.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

prefix=(env KB_CUPTI_LIB=/nonexistent/libcupti.so)
expect 0 "kernel timer \(--timer kernels\): unavailable: dlopen /nonexistent/libcupti.so: .*No such file" -- info
prefix=()
expect 2 "--timer cycles: expected events or kernels" -- run nms --timer cycles
expect 2 "--host-repeats 0" -- run nms --host-repeats 0
expect 2 "--timer cycles: expected events or kernels" -- compare a.csv b.csv --timer cycles

# host variants need no device: the run works with the timer on
csv=$tmp/host.csv
prefix=(env KB_CUPTI_LIB=/nonexistent/libcupti.so)
expect 0 "" -- run topk -v cpu_select --sweep smoke --max-cases 2 --max-time 0.05 --min-samples 3 \
    --timer kernels --host-repeats 2 -o "$csv" -o "$tmp/host.json"
prefix=()
expect_file "$csv" ",source,forced,peer,kernel_us,kernel_p10_us,kernel_p90_us,span_us,kernels,repeats,repeat_spread_pct,interleaved$"
# a host row: no kernel time (5 empty fields), 2 repeats and their spread
expect_file "$csv" "^topk,cpu_select,.*,host,builtin,no,no,,,,,,2,[0-9.]+,no$"
expect_file "$tmp/host.json" '"source":"builtin","forced":false,"peer":false,"repeats":2,"repeat_spread_pct":[0-9.]+,"interleaved":false,"samples_us"'
check "a host row's JSON has no kernel_us" bash -c "! grep -q kernel_us '$tmp/host.json'"
# report: the rows timed in repeats, each with its repeats and their spread
rrc=0 # the pages are written without gnuplot too, and the exit says it was missing
command -v gnuplot >/dev/null || rrc=4
expect $rrc "" -- report "$csv" -o "$tmp/rep"
expect_file "$tmp/rep/report.md" "^### Rows timed in repeats"
expect_file "$tmp/rep/report.md" "^\| cpu_select \| [^|]+ \| [0-9.]+ [mu]?s \| 2 \| [0-9.]+% \|$"

# compare --timer kernels: event times equal, kernel time 20% slower
hdr="op,variant,params,mode,status,median_us,p10_us,p90_us,kernel_us,kernel_p10_us,kernel_p90_us"
printf '%s\n%s\n%s\n' "$hdr" "nms,a,n=1000,cold,PASS,100,99.5,100.5,50,49.8,50.2" \
    "nms,b,n=1000,cold,PASS,100,99.5,100.5,,," >"$tmp/old.csv"
printf '%s\n%s\n%s\n' "$hdr" "nms,a,n=1000,cold,PASS,100,99.5,100.5,60,59.8,60.2" \
    "nms,b,n=1000,cold,PASS,100,99.5,100.5,,," >"$tmp/new.csv"
expect 0 "2 SAME" -- compare "$tmp/old.csv" "$tmp/new.csv"
expect 5 "SLOWER" -- compare "$tmp/old.csv" "$tmp/new.csv" --timer kernels
expect 5 "timer kernels: 1 pair\(s\) judged by kernel time \(kernel_us\), 1 by event time" -- \
    compare "$tmp/old.csv" "$tmp/new.csv" --timer kernels --format md

# report --timer kernels: the event time ships blockwalk, the kernel time
# bitmask; the page says which time it judged by, and of how many rows
printf '%s\n%s\n%s\n%s\n' "$hdr" "nms,blockwalk,n=1000,cold,PASS,100,99.5,100.5,80,79.8,80.2" \
    "nms,bitmask,n=1000,cold,PASS,110,109.5,110.5,50,49.8,50.2" \
    "nms,bitmask_host,n=1000,cold,PASS,900,899,901,,," >"$tmp/k.csv"
expect 2 "--timer cycles: expected events or kernels" -- report "$tmp/k.csv" --timer cycles
expect $rrc "" -- report "$tmp/k.csv" -o "$tmp/ev"
expect_file "$tmp/ev/report.md" "^\| nms \| \(defaults\) \| blockwalk \| 100.00 us \|"
expect_file "$tmp/ev/report.md" "Judged by event time \(median_us: CUDA events around each sample\)"
expect $rrc "" -- report "$tmp/k.csv" --timer kernels -o "$tmp/kt"
expect_file "$tmp/kt/report.md" "^\| nms \| \(defaults\) \| bitmask \| 50.00 us \|"
expect_file "$tmp/kt/report.md" \
    "Judged by kernel time \(--timer kernels: kernel_us\) for 2 of 3 rows; 1 without it"
expect_file "$tmp/kt/report.html" "Judged by kernel time"
expect_file "$tmp/kt/summary.md" "one ran\)\. Judged by kernel time \(--timer kernels: kernel_us\) for 2 of 3"
check "a file without repeats has no repeats table" \
    bash -c '! grep -q "Rows timed in repeats" "$1"' _ "$tmp/ev/report.md"
check "the summary of an event-time report stays as it was" \
    bash -c '! grep -q "Judged by" "$1"' _ "$tmp/ev/summary.md"

finish test_ktime
