#!/usr/bin/env bash
# test_plugins.sh — C plugins in the table (--plugin), without a GPU: host
# variants of tests/plugins/test_plugin.c. A right one PASSes and a wrong
# one FAILs beside the built-ins; one that aborts in setup costs CRASH rows
# and one that hangs TIMEOUT rows while the sweep completes; the refusals
# (not a shared library, no entry symbol, another ABI major, a name that
# exists) exit 2 with their reason and touch no file; rows and the header
# say where each row came from.
source "$(dirname "$0")/cli_lib.sh"
p=${KBT_PLUGINS:?KBT_PLUGINS: the folder of the test plugins}
plain=$p/libkbt_plugin_plain.so
cd "$tmp"

# The example plugin's host variant, and a mutated copy of it (ascending).
expect 0 "example_select +segments=7x5000 .*PASS" -- run topk --plugin "${KBT_EXAMPLE:?}" \
    -v example_select -a segments=7x5000 --max-time 0.05
sed 's/return a->v > b->v ? -1 : 1;/return a->v > b->v ? 1 : -1;/' \
    "$src/examples/plugin/example_select.c" >mutant.c
cat >rows.c <<'C'
#include "kbench/kbench.h"
extern const kb_variant_impl example_select;
static const kb_variant rows[] = {
    {"topk", "example_select", "ascending: a mutant", KB_HOST, &example_select, __FILE__}, {0}};
KB_PLUGIN(rows)
C
differs() { ! cmp -s "$1" "$2"; }
check "the mutation applies" differs "$src/examples/plugin/example_select.c" mutant.c
"${KBT_CC:-cc}" -shared -fPIC -O1 -I"$src/include" -I"${KBT_CUDA_INCLUDE:-/usr/local/cuda/include}" \
    mutant.c rows.c -o libmutant.so
expect 1 "example_select +segments=7x5000 .*FAIL.*does not match the reference" -- run topk \
    --plugin libmutant.so -v example_select -a segments=7x5000 --max-time 0.05

expect 0 "plug_sort +segments=7x5000 k=10 +PASS" -- run topk --plugin "$plain" -v plug_sort \
    -a segments=7x5000 -a k=10 --max-time 0.05
expect 1 "plug_reversed .*FAIL.*does not match the reference" -- run topk --plugin "$plain" \
    -v plug_reversed,cpu_select -a segments=7x5000 --max-time 0.05
expect 0 "cpu_select .*PASS.*plug_sort .*PASS" -- check topk --plugin "$plain" \
    -v cpu_select,plug_sort --sweep smoke

# A crash and a hang cost their own rows; the rows after them still run.
out=$("$k" run topk --plugin "$plain" -v plug_abort,plug_hang,plug_hang_supports,plug_sort,cpu_select \
    -a segments=7x500 -a k=[10,20] --max-time 0.02 --case-timeout 2 -o rows.csv 2>&1)
rc=$?
check "crash and hang: exit 1" [ $rc -eq 1 ]
check "abort in setup: a CRASH row a case" [ "$(grep -c '^topk,plug_abort,.*,CRASH,.*signal 6' rows.csv)" -eq 2 ]
check "hang: a TIMEOUT row a case" [ "$(grep -c '^topk,plug_hang,.*,TIMEOUT,' rows.csv)" -eq 2 ]
check "hang in supports: a TIMEOUT row a case" \
    [ "$(grep -c '^topk,plug_hang_supports,.*,TIMEOUT,' rows.csv)" -eq 2 ]
check "the rest of the sweep: PASS" [ "$(grep -c ',PASS,' rows.csv)" -eq 4 ]
expect_file rows.csv "^topk,plug_sort,.*,host,plugin:libkbt_plugin_plain.so,no,no,,,,,,[0-9]*,[0-9.]*,no$"
expect_file rows.csv "^topk,cpu_select,.*,host,builtin,no,no,,,,,,[0-9]*,[0-9.]*,no$"
expect_file rows.csv "^# plugin: libkbt_plugin_plain.so sha256 [0-9a-f]{64} /"
expect_file rows.csv "^op,variant,.*,where,source,forced,peer,kernel_us,.*,repeat_spread_pct,interleaved$"

# report groups the variants by where they come from.
if command -v gnuplot >/dev/null; then
    expect 0 "report" -- report rows.csv -o rep
    expect_file rep/report.md "^\| plugin:libkbt_plugin_plain.so \| plug_abort, plug_hang, "
    expect_file rep/report.md "^\| builtin \| cpu_select \|"
fi

# A plugin's code shares a process with its own variants only: what it does
# to its process (one OpenMP thread) never reaches the built-in rows after it.
OMP_NUM_THREADS=2 "$k" run topk --plugin "$plain" -v cpu_select,plug_threads \
    -a segments=7x500 -a k=[10,20,30] --max-time 0.01 -q -o threads.csv >/dev/null 2>&1
ws=$(grep '^topk,cpu_select,' threads.csv | cut -d, -f22 | sort -u | wc -l)
check "built-in rows after a plugin's: the same OpenMP threads" [ "$ws" -eq 1 ]

# compare notes a row whose plugin file changed between the two runs.
mkdir v1 v2
cp "$plain" v1/libsame.so
cp "$plain" v2/libsame.so
printf x >>v2/libsame.so
for v in v1 v2; do
    "$k" run topk --plugin $v/libsame.so -v plug_sort -a segments=7x50 --max-time 0.01 -q \
        -o $v.csv >/dev/null 2>&1
done
expect 0 "plug_sort .*plugin:libsame.so changed \(sha256 [0-9a-f]{12} -> [0-9a-f]{12}\)" -- \
    compare v1.csv v2.csv --all --threshold 1000
expect 0 "plug_sort " -- compare v1.csv v1.csv --all
check "the same file: no change noted" [ "$("$k" compare v1.csv v1.csv --all | grep -c changed)" -eq 0 ]

# Refusals: one line each, exit 2, the -o file untouched.
echo keep > keep.csv
echo "not a library" > bad.so
expect 2 "bad.so: not a shared library kbench can load" -- run topk --plugin bad.so \
    -v cpu_select -o keep.csv --overwrite
expect 2 "no entry symbol kb_plugin_entry" -- run topk --plugin "$p/libkbt_plugin_no_entry.so" \
    -v cpu_select -o keep.csv --overwrite
expect 2 "built against kbench ABI 9\.0, this kbench is ABI 1\.[0-9]+" -- run topk \
    --plugin "$p/libkbt_plugin_abi.so" -v cpu_select -o keep.csv --overwrite
expect 2 "variant topk/cpu_select clashes with the built-in" -- run topk \
    --plugin "$p/libkbt_plugin_clash.so" -v cpu_select -o keep.csv --overwrite
expect 2 "clashes with the one of that name in" -- run topk --plugin "$plain" \
    --plugin "$(cp "$plain" twin.so && echo twin.so)" -v cpu_select -o keep.csv --overwrite
expect 2 "nope.so: No such file or directory" -- run topk --plugin nope.so -v cpu_select
expect 2 "given twice" -- run topk --plugin "$plain" --plugin "$plain" -v cpu_select
expect 2 "--plugin needs a value" -- run topk --plugin
check "refusals leave the -o file as it was" [ "$(cat keep.csv)" = keep ]

# list shows a plugin's variants with their source.
expect 0 "plug_sort .*\[host\].*plugin:libkbt_plugin_plain.so" -- list topk --plugin "$plain"
expect 0 "topk/plug_hang" -- list --names --plugin "$plain"
expect 2 "no entry symbol" -- list topk --plugin "$p/libkbt_plugin_no_entry.so"

finish test_plugins
