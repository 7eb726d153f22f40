#!/usr/bin/env bash
# test_layers.sh — harness/'s include structure (include_layers.sh): run/ and
# analysis/ meet only in results/, and no units include each other in a
# circle; and the check itself fails on a planted include across, and on a
# planted circle.
source "$(dirname "$0")/cli_lib.sh"
layers=$src/tests/cli/include_layers.sh

out=$(bash "$layers" "$src/harness" 2>&1)
check "harness/ has no include across run/ and analysis/, and no circle: $out" test $? -eq 0

cp -r "$src/harness" "$tmp/across"
printf '#include "analysis/views.h"\n' >>"$tmp/across/run/out_table.c"
out=$(bash "$layers" "$tmp/across" 2>&1)
check "an include from run/ into analysis/ fails, naming the line" \
    grep -q "^run/out_table.c:[0-9]* includes analysis/views.h" <<<"$out"

cp -r "$src/harness" "$tmp/up"
printf '#include "run/row.h"\n' >>"$tmp/up/results/params.h"
out=$(bash "$layers" "$tmp/up" 2>&1)
check "an include from results/ into run/ fails" \
    grep -q "^results/params.h:[0-9]* includes run/row.h" <<<"$out"

cp -r "$src/harness" "$tmp/circle"
printf '#include "compare_runs.h"\n' >>"$tmp/circle/analysis/views.c"
out=$(bash "$layers" "$tmp/circle" 2>&1)
rc=$?
check "an include circle (views -> compare_runs -> results -> views) fails: exit $rc" \
    bash -c 'test $1 -eq 1 && grep -q "include circle" <<<"$2"' _ $rc "$out"

finish layers
