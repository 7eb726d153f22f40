#!/usr/bin/env bash
# Reliability through kbench_faulty (kbench with the broken variants of
# tests/faulty): a sweep holding a variant that writes out of bounds and one
# that never finishes completes; their rows are CRASH and TIMEOUT with the
# error, and the good rows around them are PASS and present. Also: memory
# that cannot fit is UNSUPPORTED with the numbers, an allocation failure in
# setup is a row, a leak is reported, a setup that fails holding memory
# leaks nothing, a setup's work left on the legacy stream is done before the
# run, --force runs past a limit, and
# --no-isolate reports the rows after a crash as not run.
# GPU: exits 77 (skipped) without a device.
set -u
k=${KBENCH:-build/tests/kbench_faulty}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
small=(-a interp=nearest -a in_h=64 -a in_w=96 -a out_h=32 -a out_w=48)
# status FILE VARIANT N: the status of the N-th row (1-based) of VARIANT
status() { grep -v '^#' "$1" | awk -F, -v v="$2" -v n="$3" '$2 == v && ++i == n { print $5 }'; }
# reason_has FILE VARIANT PATTERN: every row of VARIANT has a reason matching PATTERN
reason_has() {
    local rows
    rows=$(grep -v '^#' "$1" | awk -F, -v v="$2" '$2 == v')
    [ -n "$rows" ] && ! grep -vqE -- "$3" <<<"$rows"
}

"$k" list preprocess | grep -q fault_oob_write || { echo "$k is not kbench_faulty"; exit 1; }
good=nearest_naive,fault_oob_write,nearest_vec,fault_hang,fault_huge_workspace
good+=,fault_oom_in_setup,fault_index_limit
start=$(date +%s.%N)
"$k" check preprocess "${small[@]}" -a n=[1,2] -v "$good" --case-timeout 3 -q -o "$dir/iso.csv" \
    >"$dir/iso.log" 2>&1
rc=$?
[ $rc -eq 3 ] && { echo "no CUDA device: skipped"; exit 77; }
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
[ $rc -eq 1 ] && ok || bad "exit $rc, want 1 (a row CRASHed)"
rows=$(grep -vc '^#' "$dir/iso.csv")
[ "$rows" -eq 15 ] && ok || bad "$rows lines (header + 14 rows expected)"
for n in 1 2; do
    for v in nearest_naive nearest_vec; do
        [ "$(status "$dir/iso.csv" $v $n)" = PASS ] && ok || bad "$v row $n is not PASS"
    done
    [ "$(status "$dir/iso.csv" fault_oob_write $n)" = CRASH ] && ok ||
        bad "fault_oob_write row $n is not CRASH"
    [ "$(status "$dir/iso.csv" fault_hang $n)" = TIMEOUT ] && ok ||
        bad "fault_hang row $n is not TIMEOUT"
    for v in fault_huge_workspace fault_oom_in_setup fault_index_limit; do
        [ "$(status "$dir/iso.csv" $v $n)" = UNSUPPORTED ] && ok || bad "$v row $n not UNSUPPORTED"
    done
done
reason_has "$dir/iso.csv" fault_oob_write "illegal memory access|cudaErrorIllegalAddress" && ok ||
    bad "the CRASH rows do not carry the CUDA error"
reason_has "$dir/iso.csv" fault_hang "did not finish within 3 s" && ok ||
    bad "the TIMEOUT rows do not say why"
reason_has "$dir/iso.csv" fault_huge_workspace "workspace 1048576.00 GiB > [0-9.]+ GiB free" && ok ||
    bad "the refused workspace does not give the numbers"
reason_has "$dir/iso.csv" fault_oom_in_setup "out of device memory: cudaMalloc\(1125899906842624\)" &&
    ok || bad "the failed allocation in setup is not an UNSUPPORTED row with its size"
grep -q "LEAK" "$dir/iso.log" && bad "a leak reported where there is none" || ok
echo "isolated sweep with 2 crashes and 2 timeouts (3 s each): ${secs} s"

# A leak is per worker process: three cases in one worker (no faults here).
"$k" check preprocess "${small[@]}" -a n=[1:3] -v nearest_naive,fault_leak -q -o "$dir/leak.csv" \
    >"$dir/leak.log" 2>&1 && ok || bad "the leaking sweep failed: $(cat "$dir/leak.log")"
grep -qE "LEAK: preprocess/fault_leak: device memory in use grew by [0-9.]+ MiB over 2 of its 2 row" \
    "$dir/leak.log" && ok || bad "the leak was not reported: $(cat "$dir/leak.log")"
grep -q "LEAK: preprocess/nearest" "$dir/leak.log" && bad "a good variant was blamed for a leak" ||
    ok

# A setup that fails holding 256 MiB costs an ERROR row, not a leak: the runner
# tears down the state it handed back (isolated, and in this process).
for iso in --isolate --no-isolate; do
    "$k" check preprocess "${small[@]}" -a n=[1:3] -v nearest_naive,fault_setup_fails $iso -q \
        -o "$dir/setup$iso.csv" >"$dir/setup$iso.log" 2>&1
    [ "$(status "$dir/setup$iso.csv" fault_setup_fails 3)" = ERROR ] && ok ||
        bad "$iso: fault_setup_fails is not an ERROR row"
    reason_has "$dir/setup$iso.csv" fault_setup_fails "setup fails on purpose" && ok ||
        bad "$iso: the failed setup's message is not the row's reason"
    grep -q "LEAK" "$dir/setup$iso.log" && bad "$iso: a failed setup leaked: $(cat "$dir/setup$iso.log")" ||
        ok
done

# --force: the row runs past the (false) limit, and says so.
"$k" check preprocess "${small[@]}" -a n=1 -v nearest_naive,fault_index_limit --force -q \
    -o "$dir/force.csv" >"$dir/force.log" 2>&1 && ok || bad "--force run failed: $(cat "$dir/force.log")"
[ "$(status "$dir/force.csv" fault_index_limit 1)" = PASS ] && ok || bad "the forced row is not PASS"
reason_has "$dir/force.csv" fault_index_limit "^.*FORCED past its limit \(pretends its indices" && ok ||
    bad "the forced row's reason does not start with FORCED and the limit"

# A setup whose last kernel still runs on the legacy stream when it returns
# (fault_setup_async spins ~0.1 s first): the runner waits for setup's work
# before the checked run on its non-blocking stream, so every row is PASS.
for iso in --isolate --no-isolate; do
    "$k" check preprocess "${small[@]}" -a n=[1,2] -v fault_setup_async $iso -q \
        -o "$dir/async$iso.csv" >"$dir/async$iso.log" 2>&1 && ok ||
        bad "$iso: the setup_async check failed: $(cat "$dir/async$iso.log")"
    for n in 1 2; do
        [ "$(status "$dir/async$iso.csv" fault_setup_async $n)" = PASS ] && ok ||
            bad "$iso: fault_setup_async row $n is not PASS (the run did not wait for setup)"
    done
done

# --no-isolate: one process; after the crash, later rows are not run.
"$k" check preprocess "${small[@]}" -a n=[1,2] -v fault_oob_write,nearest_naive --no-isolate -q \
    -o "$dir/inproc.csv" >"$dir/inproc.log" 2>&1
[ "$(status "$dir/inproc.csv" fault_oob_write 1)" = CRASH ] && ok || bad "in-process: no CRASH row"
[ "$(status "$dir/inproc.csv" nearest_naive 1)" = NOT_RUN ] && ok ||
    bad "in-process: the row after the crash is not NOT_RUN"
grep -q "context was lost" "$dir/inproc.csv" && ok || bad "in-process: 'not run' not said"

echo "isolation: $pass passed, $fail failed"
[ $fail -eq 0 ] || { echo "--- iso.csv"; cat "$dir/iso.csv"; echo "--- iso.log"; cat "$dir/iso.log"; }
exit $((fail > 0))
