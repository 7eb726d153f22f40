#!/usr/bin/env bash
# test_columns.sh — `kbench list --columns [--json]`: the column table of the
# results files (harness/results/result.h), the same names in the same order
# as the header a run writes; and no script of the tree keeps its own copy.
source "$(dirname "$0")/cli_lib.sh"

expect 0 "^op	text	" -- list --columns
"$k" list --columns >"$tmp/cols" 2>&1
check "every line is name, type and meaning, tab-separated" \
    bash -c '! grep -qvP "^[a-z0-9_]+\t(text|number|status|yes/no)\t[^\t]+$" "$1"' _ "$tmp/cols"

"$k" check nms -v cpu_greedy -a n=5 -o "$tmp/run.csv" >/dev/null 2>&1
check "a host run writes its CSV (exit $?)" test -s "$tmp/run.csv"
header=$(grep -v '^#' "$tmp/run.csv" | head -1)
names=$(cut -f1 "$tmp/cols" | paste -sd,)
check "the columns are the header a run writes, in order: $names" test "$header" = "$names"

if command -v python3 >/dev/null; then
    "$k" list --columns --json >"$tmp/cols.json" 2>&1
    check "--json: an array of {name, type, required, meaning}, the same names" \
        python3 -c 'import json, sys
cols = json.load(open(sys.argv[1]))
assert [c["name"] for c in cols] == sys.argv[2].split(","), cols
assert all(set(c) == {"name", "type", "required", "meaning"} for c in cols)
assert [c["name"] for c in cols if c["required"]] == ["op", "variant", "params", "status"]' \
        "$tmp/cols.json" "$names"
fi
expect 2 "--json needs --columns" -- list --json
expect 2 "--columns takes no OP" -- list nms --columns

# The Python side (the worker, peers/, scripts, examples) reads columns by
# name or asks kbench: no file lists the table itself.
copies=$(grep -rl --include='*.py' --include='*.sh' -e pct_peak_flops \
    "$src/peers" "$src/harness/py" "$src/scripts" "$src/examples" 2>/dev/null)
check "no Python or shell file of the tree keeps a copy of the columns: $copies" test -z "$copies"

finish columns
