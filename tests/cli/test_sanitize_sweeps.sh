#!/usr/bin/env bash
# Every op has a "sanitize" sweep (scripts/sanitize.sh runs it under the four
# compute-sanitizer tools, racecheck included, in a few minutes): its cases
# are valid (kbench check exits 3, no device, not 2) and there are at most as
# many as this test allows, so that a later edit cannot silently make the
# sanitizer run miss its time. Runs on any machine: the device is hidden.
# Run by CTest with KBENCH set to the binary.
set -u
k=${KBENCH:-build/kbench}
pass=0 fail=0
# The most cases each op's sanitize sweep may hold (the sweep's comment in
# kernels/<op>.c says which branch each case is for).
declare -A most=([preprocess]=16 [topk]=8 [rpn_proposals]=4 [nms]=11 [deform_conv2d]=31
    [yolo_decode]=7)
# ... and its sanitize_large sweep (the cases racecheck cannot get through,
# run under the other three tools), where it has one.
declare -A most_large=([topk]=7 [rpn_proposals]=4 [nms]=3 [yolo_decode]=1 [deform_conv2d]=4)

bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

ops=$("$k" list --names | grep -v /)
[ -n "$ops" ] || bad "kbench list --names lists no op"
for op in $ops; do
    limit=${most[$op]:-}
    if [ -z "$limit" ]; then
        bad "$op: no case limit for its sanitize sweep in $0"
        continue
    fi
    if ! "$k" list "$op" | grep -qE "^ +sanitize "; then
        bad "$op: kbench list $op shows no sanitize sweep"
        continue
    fi
    sweeps=(sanitize)
    if "$k" list "$op" | grep -qE "^ +sanitize_large "; then
        sweeps+=(sanitize_large)
        [ -n "${most_large[$op]:-}" ] || bad "$op: no case limit for its sanitize_large sweep in $0"
    fi
    for sweep in "${sweeps[@]}"; do
        [ "$sweep" = sanitize_large ] && limit=${most_large[$op]:-0}
        out=$(CUDA_VISIBLE_DEVICES= "$k" check "$op" --sweep "$sweep" --no-isolate -q 2>&1)
        rc=$?
        cases=$(sed -nE 's/^\(([0-9]+) case\(s\) were valid.*/\1/p' <<<"$out")
        if [ $rc -ne 3 ] || [ -z "$cases" ]; then
            bad "$op: kbench check $op --sweep $sweep exited $rc (want 3: every case valid, no device):"
            echo "$out" | head -5 | sed 's/^/    /'
        elif [ "$cases" -gt "$limit" ]; then
            bad "$op: its $sweep sweep has $cases cases, more than $limit"
        else
            pass=$((pass + 1))
        fi
    done
done
echo "sanitize sweeps: $pass passed, $fail failed"
[ $fail -eq 0 ]
