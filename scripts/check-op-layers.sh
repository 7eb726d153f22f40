#!/usr/bin/env bash
# check-op-layers.sh — the ops' files call each other one way, by the symbols
# their objects define and use: reference/<op>.c reaches its parameters in
# kernels/<op>_params.c and never calls into an op's table (kernels/<op>.c,
# which calls the reference), and a _params.c calls neither. So no circle
# joins kernels/ and reference/. Prints every call across the two folders.
#   scripts/check-op-layers.sh OBJECT...   (kbench_ops' objects: kernels/*.o, reference/*.o)
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 OBJECT... (the objects of kernels/*.c and reference/*.c)" >&2; exit 2; }
IFS=';' read -r -a objs <<< "$*" # CTest hands $<TARGET_OBJECTS:...> as one ;-list
declare -A def_of # symbol -> the object (folder/stem) that defines it
name_of() { local o=${1%.o}; o=${o%.c}; echo "$(basename "$(dirname "$o")")/$(basename "$o")"; }
for o in "${objs[@]}"; do
    for s in $(nm --defined-only -g "$o" | awk '$2 ~ /[TDRB]/ {print $3}'); do def_of[$s]=$(name_of "$o"); done
done
bad=0
for o in "${objs[@]}"; do
    from=$(name_of "$o")
    case $from in kernels/* | reference/*) ;; *) continue ;; esac
    for s in $(nm -u "$o" | awk '{print $2}'); do
        to=${def_of[$s]:-}
        [ -n "$to" ] && [ "$to" != "$from" ] || continue
        case $to in kernels/* | reference/*) ;; *) continue ;; esac
        [ "${from%%/*}" != "${to%%/*}" ] && echo "  $from -> $to ($s)"
        case $from:$to in
        reference/*:kernels/*_params) ;;
        reference/*:kernels/*) echo "kbench: $from calls $s in the table $to, which calls the reference" >&2; bad=1 ;;
        kernels/*_params:*) echo "kbench: $from calls $s in $to: a _params.c sits below both" >&2; bad=1 ;;
        esac
    done
done
[ $bad -eq 0 ] && echo "no call from reference/ into an op's table, none out of a _params.c"
exit $bad
