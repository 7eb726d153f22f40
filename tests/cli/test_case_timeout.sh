#!/usr/bin/env bash
# --case-timeout bounds the making of a case's inputs and CPU reference too,
# not only each pair's device work: a case whose preparation overruns is a
# TIMEOUT row for every variant of it, naming the stage that overran, and the
# sweep goes on with the next case. Host variants (nms/cpu_*): no GPU needed.
# (tests/cpu/test_isolate.c holds the other stages, with scripted workers.)
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

prefix=(timeout 60) # a timeout that does not bound the stage fails here, not by hanging
# The CPU reference of n=4000000 (greedy NMS, quadratic) takes minutes; n=100's
# milliseconds.
t0=$SECONDS
expect 1 "2 case\(s\), 4 row\(s\): 2 PASS, 0 FAIL, 0 UNSUPPORTED, 0 ERROR, 0 CRASH, 2 TIMEOUT" -- \
    run nms -v cpu_greedy,cpu_bitmask -a n=[4000000,100] --case-timeout 2 --max-time 0.05 \
    --min-samples 3 -q -o "$tmp/ref.csv"
prefix=()
check "a case past --case-timeout in its reference costs about the timeout ($((SECONDS - t0)) s)" \
    test $((SECONDS - t0)) -lt 30
for v in cpu_greedy cpu_bitmask; do
    expect_file "$tmp/ref.csv" \
        "^nms,$v,n=4000000 [^,]*,cold,TIMEOUT,\"?the case's CPU reference did not finish within 2 s \(--case-timeout"
    expect_file "$tmp/ref.csv" "^nms,$v,n=100 [^,]*,cold,PASS,"
done

finish case_timeout
