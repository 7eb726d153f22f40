#!/usr/bin/env bash
# test_public_headers.sh — the public contract stays the only way in: the
# variants (variants/) and the example plugin (examples/plugin/) include only
# include/kbench/ and headers of their own tree, nothing of harness/,
# kernels/, reference/ or datasets/. The build's include path refuses
# "kbench.h" or "topk.h" there already; this also catches a path that climbs
# out of the tree ("../../harness/core/kbench.h"). And the headers keep their
# shape: each public one opens with a comment of at most 15 lines that says
# what is in it, and the harness's own (harness/core/) stay under 150 lines.
#   KB_SOURCE_DIR=<source dir> bash tests/cli/test_public_headers.sh
source "$(dirname "$0")/cli_lib.sh"

# The folders the harness's own code finds headers in: an angle include that
# names a file there is the harness's, not the system's.
internal=(harness/core harness kernels datasets reference .)

# allowed FILE TREE INCLUDE QUOTE: the include of FILE (a file under TREE) is
# public (kbench/...) or a header of TREE, found from FILE's folder.
allowed() {
    local file=$1 tree=$2 inc=$3 quote=$4
    [[ $inc == kbench/* && -f $src/include/$inc ]] && return 0
    if [[ $quote == '"' ]]; then
        local at
        at=$(realpath -m "$(dirname "$file")/$inc")
        [[ -f $at && $at == "$src/$tree/"* ]]
        return
    fi
    for dir in "${internal[@]}"; do
        [[ -f $src/$dir/$inc ]] && return 1
    done
    return 0
}

for tree in variants examples/plugin; do
    [ -d "$src/$tree" ] || continue
    while IFS= read -r -d '' file; do
        bad=""
        while IFS= read -r line; do
            quote=${line:0:1}
            inc=${line:1:${#line}-2}
            allowed "$file" "$tree" "$inc" "$quote" || bad+=" $line"
        done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*(["<][^">]+[">]).*/\1/p' "$file")
        check "${file#"$src"/} includes only the public headers and its own tree (has:$bad)" \
            test -z "$bad"
    done < <(find "$src/$tree" -type f \( -name '*.c' -o -name '*.cu' -o -name '*.h' -o -name '*.cuh' \) -print0)
done

# The check itself: an include of the harness's header, by name and by a
# path out of the tree, is refused; a system header and a neighbour are not.
refused() { ! allowed "$@"; }
probe=$src/variants/nms/probe.cu
check 'refuses "kbench.h"' refused "$probe" variants kbench.h '"'
check 'refuses "../../harness/core/kbench.h"' refused "$probe" variants ../../harness/core/kbench.h '"'
check 'refuses "variants/common/arch.cuh" (by the root)' refused "$probe" variants variants/common/arch.cuh '"'
check 'refuses <topk.h>' refused "$probe" variants topk.h '<'
check 'allows <stdio.h>' allowed "$probe" variants stdio.h '<'
check 'allows "masks.cuh" beside it' allowed "$probe" variants masks.cuh '"'

# The headers' shape.
opening() { # lines of the comment FILE opens with; 0 when it opens otherwise
    awk 'NR == 1 && !/^\/\*/ { print 0; exit } /\*\// { print NR; exit }' "$1"
}
for h in "$src"/include/kbench/*.h "$src"/include/kbench/ops/*.h; do
    n=$(opening "$h")
    check "${h#"$src"/} opens with a comment of 1-15 lines (has $n)" test "$n" -ge 1 -a "$n" -le 15
done
for h in "$src"/harness/core/*.h; do
    n=$(wc -l <"$h")
    check "${h#"$src"/} has at most 150 lines (has $n)" test "$n" -le 150
done

finish test_public_headers
