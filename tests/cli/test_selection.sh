#!/usr/bin/env bash
# test_selection.sh — what a run selects, without a GPU (README "Running"):
# an axis named twice (two -a, or twice on one sweep line) is refused naming
# it, while -a still overrides a sweep file's axis; a selection of no variant
# or no case is exit 2 saying which option emptied it; a -v list is read
# whole however long; -v OP/VARIANT picks variants of several ops under
# `all`; without a device, the hint about host variants is a command that
# runs them.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh" || exit 2

# ---- an axis twice: refused, naming it; -a overrides a file's axis ----
expect 2 "-a n=\[3,4\]: axis n is given twice \(-a n=\[1,2\] before it\)" -- \
    check nms -a n=[1,2] -a n=[3,4] --dry-run
expect 2 "-a n\[pow2\]=\[0:2\]: axis n is given twice \(-a n=5 before it\)" -- \
    check nms -a n=5 -a 'n[pow2]=[0:2]' --dry-run
printf '# two specs of n on one line\nn=[1,2] n=[3,4]\n' >"$tmp/twice.txt"
expect 2 "twice.txt:2: axis n is given twice on one line \(n=\[1,2\] and n=\[3,4\]\)" -- \
    check nms --sweep "$tmp/twice.txt" --dry-run
# -a n=... does not mend a line that names n twice: the file is refused as written
expect 2 "twice.txt:2: axis n is given twice on one line" -- \
    check nms --sweep "$tmp/twice.txt" -a n=7 --dry-run
printf 'n=[1,2] iou=0.3\nn=9\n' >"$tmp/file.txt"
"$k" check nms -v cpu_greedy --sweep "$tmp/file.txt" -a n=[5,6] --dry-run >"$tmp/over" 2>/dev/null
check "-a n=[5,6] replaces each line's n: 4 cases" test "$(cut -f3 "$tmp/over" | cut -d' ' -f1-2 |
    tr '\n' ';')" = "n=5 iou=0.3;n=6 iou=0.3;n=5 iou=0.5;n=6 iou=0.5;"
expect 2 "axis n is given twice on one line" -- check nms --sweep "$tmp/twice.txt" -v cpu_greedy \
    -o "$tmp/twice.csv"
check "a refused sweep writes no file" test ! -e "$tmp/twice.csv"

# ---- an empty selection: exit 2, naming the option that emptied it ----
expect 2 "-v '': names no variant" -- check nms -v '' -a n=5
expect 2 "-v ',': names no variant" -- check nms -v , -a n=5
expect 2 "-v cpu_greedy,cpu_greedy: nms/cpu_greedy is named twice" -- \
    check nms -v cpu_greedy,cpu_greedy -a n=5 --dry-run
expect 2 "--max-cases 0: no case of the sweep is left \(nothing to run\)" -- \
    check nms -v cpu_greedy --max-cases 0 -o "$tmp/none.csv"
check "an empty selection writes no file" test ! -e "$tmp/none.csv"
ns=$("$k" check nms -v cpu_greedy --dry-run 2>/dev/null | wc -l) # the smoke sweep's cases
expect 2 "--first-case $ns: past the end of nms's sweep \($ns cases\): no case is left" -- \
    check nms -v cpu_greedy --first-case "$ns"
expect 0 "1 pair\(s\) of 1 case\(s\)" -- check nms -v cpu_greedy --first-case $((ns - 1)) --dry-run
expect 0 "1 row\(s\): 1 PASS" -- check nms -v cpu_greedy --first-case $((ns - 1))
expect 0 "2 pair\(s\) of 2 case\(s\)" -- check nms -v cpu_greedy --max-cases 0 --fuzz 2 --dry-run
expect 2 "--first-case 100000: past the end of every op's sweep: no case is left" -- \
    check all --first-case 100000 --dry-run

# ---- -v lists of any length, and OP/VARIANT names ----
pad=$(printf ',%.0s' {1..1100}) # empty items are skipped: the name after them still counts
"$k" check nms -v "${pad}cpu_bitmask" -a n=5 --dry-run >"$tmp/long" 2>&1
check "a -v list of 1110 characters is read whole" grep -q "^nms	cpu_bitmask	n=5 " "$tmp/long"
zeros=$(printf '0%.0s' {1..600})
expect 2 "--devices ${zeros}x: expected an integer" -- check nms -a n=5 --devices "${zeros}x"
expect 0 "nms	cpu_greedy	n=5 " -- check nms -v nms/cpu_greedy -a n=5 --dry-run
expect 2 "-v topk/cpu_select: not a variant of nms \(the run is of nms only\)" -- \
    check nms -v topk/cpu_select -a n=5 --dry-run
expect 2 "-v nope/cpu_select: no op 'nope'" -- check all -v nope/cpu_select --dry-run
expect 2 "op nms has no variant 'nope'" -- check all -v nms/nope --dry-run
"$k" check all -v topk/cpu_select,nms/cpu_greedy --max-cases 1 --dry-run >"$tmp/qual" 2>/dev/null
check "check all -v topk/cpu_select,nms/cpu_greedy: those two, one case each" \
    test "$(cut -f1,2 "$tmp/qual" | tr '\t\n' '/;')" = "topk/cpu_select;nms/cpu_greedy;"

# ---- without a device: the host variants' hint is a command that runs them ----
if ! nvidia-smi >/dev/null 2>&1; then
    out=$("$k" check all --max-cases 1 -o "$tmp/host all.csv" 2>&1)
    check "check all without a device: exit 3" test $? -eq 3
    hint=$(grep -A1 'to run them alone' <<<"$out" | tail -1)
    check "the hint is a kbench command: '$hint'" grep -q "^  kbench check all " <<<"$hint"
    cmd="\"\$k\"${hint#  kbench}"
    eval "$cmd" >"$tmp/hint.log" 2>&1
    rc=$?
    check "the hint's command runs (exit $rc): $hint" test $rc -eq 0
    check "... and writes the -o file of the command it came from, host rows only" \
        bash -c 'f=$1; test "$(grep -v "^#" "$f" | tail -n +2 | grep -c ",host,builtin,no,no,,,,,,[0-9]*,[0-9.]*,no$")" -ge 4 &&
            ! grep -v "^#" "$f" | tail -n +2 | grep -qv ",host,builtin,no,no,,,,,,[0-9]*,[0-9.]*,no$"' _ "$tmp/host all.csv"
    expect 3 "to run them alone:.*  kbench check nms -a n=5 -v cpu_greedy$" -- \
        check nms -a n=5 -v blockwalk,cpu_greedy
fi

finish selection
