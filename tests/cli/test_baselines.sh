#!/usr/bin/env bash
# test_baselines.sh — every committed results file under results/ (the
# baselines of every GPU, old schema versions and peers' files among them)
# still reads, reports and compares: `kbench report FILE` exits 0 on each,
# and `kbench compare FILE FILE` finds every pair SAME or UNSURE, or STILL
# FAILING where the file holds failed rows (peers that FAIL their check): exit
# 0, or 5 for those alone. Needs gnuplot for report's plots (exit 77, skipped,
# without it).
source "$(dirname "$0")/cli_lib.sh"
command -v gnuplot >/dev/null || { echo "no gnuplot: skipped"; exit 77; }

mapfile -t files < <(cd "$src" && git ls-files 'results/*.csv' 2>/dev/null ||
    find results -name '*.csv' | sort)
check "there are committed results files (${#files[@]})" test ${#files[@]} -gt 0
for f in "${files[@]}"; do
    out=$("$k" report "$src/$f" -o "$tmp/report" 2>&1)
    rc=$?
    check "kbench report $f: exit $rc ${out:0:300}" test $rc -eq 0
    out=$("$k" compare "$src/$f" "$src/$f" 2>&1)
    rc=$?
    summary=$(grep -E '^[0-9]+ [A-Z]' <<<"$out" | head -1)
    others=$(tr ',' '\n' <<<"$summary" | sed 's/^ *[0-9]* //' | grep -vxE 'SAME|UNSURE|STILL FAILING')
    want=0
    [[ $summary == *"STILL FAILING"* ]] && want=5
    check "kbench compare $f $f: exit $rc (want $want), '$summary'" \
        test -n "$summary" -a -z "$others" -a $rc -eq $want
done
finish baselines
