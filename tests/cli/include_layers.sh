#!/usr/bin/env bash
# include_layers.sh [HARNESS_DIR] — the include structure of harness/: exit 1,
# naming the lines, when a file of run/ includes one of analysis/ or back
# (results/ is all they share, and includes neither), or when the units include each other in a
# circle. A unit is a file's folder and name less its extension (run/row.c and
# run/row.h are one); `#include "X"` is resolved as the build does: beside the
# file, then under harness/, then harness/core/ (anything else is outside).
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../harness" && pwd)}
cd "$root" || exit 2
bad=0 edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
while IFS= read -r file; do
    from=${file%.*}
    dir=$(dirname "$file")
    while IFS=: read -r line inc; do
        target=
        for cand in "$dir/$inc" "$inc" "core/$inc"; do
            cand=${cand#./}
            if [[ -f $cand ]]; then target=$cand; break; fi
        done
        [[ -n $target ]] || continue
        to=${target%.*}
        case "${file%%/*}>${target%%/*}" in
        "run>analysis" | "analysis>run")
            echo "$file:$line includes $target: run/ and analysis/ share only results/"
            bad=1
            ;;
        "results>run" | "results>analysis")
            echo "$file:$line includes $target: results/ is below run/ and analysis/"
            bad=1
            ;;
        esac
        [[ $to != "$from" ]] && echo "$from $to" >>"$edges"
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p;' "$file" |
        paste -d: <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" | cut -d: -f1) -)
done < <(find . -name '*.[ch]' | sed 's|^\./||' | sort)
# tsort names the units of a circle on stderr ("tsort: -: input contains a loop").
if ! loop=$(tsort "$edges" 2>&1 >/dev/null) || [[ -n $loop ]]; then
    echo "an include circle between units of harness/:"
    echo "$loop" | sed 's/^/    /'
    bad=1
fi
exit $bad
