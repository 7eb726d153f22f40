#!/usr/bin/env bash
# Mutation test through kbench_mutants (kbench with the deliberately wrong
# variants of tests/mutants): `kbench check OP -v MUTANT --sweep smoke` must
# catch every mutant of every op, i.e. exit 1 with a FAIL or CRASH row. A
# mut_timed_* mutant goes wrong only after the check's calls (a result cache):
# it goes through `kbench run` (check, then a short timing), whose comparison
# of the last timed launch's outputs with the checked ones must catch it. A
# mutant that passes its op's smoke sweep survives, and the test fails naming
# it: either the check or the sweep has a hole. The mutants come from
# `kbench_mutants list OP --names --test-only`, so a new one needs no edit here.
# GPU: exits 77 (skipped) without a device. KB_MUTANT_OPS narrows the ops.
set -u
k=${KBENCH:-build/tests/kbench_mutants}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ops=${KB_MUTANT_OPS:-$("$k" list --names | grep -v /)}
[ -n "$ops" ] || { echo "$k lists no ops"; exit 1; }
total=0 caught=0 survivors=()
for op in $ops; do
    mutants=$("$k" list "$op" --names --test-only | sed -n "s|^$op/||p")
    n=0 c=0
    for m in $mutants; do
        log="$dir/$op.$m.log"
        case $m in
        mut_timed_*) "$k" run "$op" -v "$m" --sweep smoke --max-time 0.02 --min-samples 2 -q \
            >"$log" 2>&1 ;;
        *) "$k" check "$op" -v "$m" --sweep smoke -q >"$log" 2>&1 ;;
        esac
        rc=$?
        [ $rc -eq 3 ] && { echo "no CUDA device: skipped"; exit 77; }
        n=$((n + 1))
        # the summary line: "N case(s), N row(s): N PASS, N FAIL, N UNSUPPORTED, N ERROR, N CRASH, ..."
        summary=$(grep -E '^[0-9]+ case\(s\)' "$log" | tail -1)
        bad=$(sed -nE 's/.* ([0-9]+) FAIL, .* ([0-9]+) CRASH, .*/\1 + \2/p' <<<"$summary")
        if [ $rc -eq 1 ] && [ -n "$bad" ] && [ $((bad)) -gt 0 ]; then
            c=$((c + 1))
        else
            survivors+=("$op/$m (exit $rc: ${summary:-no summary line})")
        fi
    done
    echo "$op: mutants caught: $c/$n"
    total=$((total + n))
    caught=$((caught + c))
done
echo "mutants caught: $caught/$total"
[ $total -gt 0 ] || { echo "no mutants listed: is $k kbench_mutants?"; exit 1; }
if [ ${#survivors[@]} -gt 0 ]; then
    echo "survivors (the smoke sweep passes them):"
    printf '  %s\n' "${survivors[@]}"
    exit 1
fi
exit 0
