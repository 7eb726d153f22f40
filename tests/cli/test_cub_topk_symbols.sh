#!/usr/bin/env bash
# test_cub_topk_symbols.sh — variants/topk/cub_topk.cu, compiled against a
# CCCL other than the toolkit's that every other file sees, defines no
# function that another object of kbench defines too: two copies of one
# name, one from each CCCL, would be merged by the linker into whichever it
# met first. Its CUB and Thrust are in a namespace of their own
# (THRUST_CUB_WRAPPED_NAMESPACE); libcu++ is not, and this keeps its
# functions out of the shared names. NVTX's functions are allowed: both
# sides take them from the toolkit's one header. Data symbols (libcu++'s
# empty tag and customisation-point objects) are not functions: left out.
#
#   bash tests/cli/test_cub_topk_symbols.sh CUB_TOPK_OBJECT LIBRARY...
set -euo pipefail
obj=$1
shift
functions() { nm --defined-only "$@" 2>/dev/null | awk '$2 == "T" || $2 == "W" {print $3}'; }
mine=$(functions "$obj" | sort -u)
[ -n "$mine" ] || { echo "FAIL: no functions in $obj" >&2; exit 1; }
# every member of the libraries but cub_topk's own object ("lib:member:addr type name")
others=$(nm --defined-only -A "$@" 2>/dev/null |
    awk '$1 !~ /:cub_topk\.cu\.o:/ && ($2 == "T" || $2 == "W") {print $3}' | sort -u)
[ -n "$others" ] || { echo "FAIL: no functions in $*" >&2; exit 1; }
shared=$(comm -12 <(echo "$mine") <(echo "$others") | grep -v '^nvtx' || true)
if [ -n "$shared" ]; then
    echo "FAIL: functions defined in cub_topk.cu.o and elsewhere in kbench:" >&2
    echo "$shared" | c++filt | head -20 >&2
    exit 1
fi
echo "PASS: $(echo "$mine" | wc -l) functions of cub_topk.cu.o, none defined elsewhere"
