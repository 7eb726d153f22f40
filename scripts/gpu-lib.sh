# gpu-lib.sh — sourced by the GPU scripts (gpu-check.sh, gpu-archs.sh,
# gpu-multi.sh): where their files go, and what `kbench compare --all
# --format md` said, counted.
#
#   source scripts/gpu-lib.sh
#   outputs summary.md gpu-check.tar.gz   # $work, $summary; say TEXT; pack
#   compare_counts OP COMPARE.md OLD.csv
#   echo "$cc_rows $cc_same $cc_other $cc_host_rows $cc_host_same"
#
# cc_rows: verdict rows (lines "| SAME |", "| UNSURE |"...; the header line
# "| verdict |" is not one); cc_same: the SAME ones; cc_other: the other
# verdicts counted ("1 SLOWER, 2 UNSURE", or empty); cc_host_rows and
# cc_host_same: the same for the rows of host variants (the OLD file's rows
# whose last column, `where`, is host), whose spread is the CPU's.
# The two runs' --max-time (KB_MAX_TIME, default 0.3 s) and the share of
# SAME device rows they must reach (KB_MIN_SAME, default 95 percent).
compare_defaults() {
    MAX_TIME=${KB_MAX_TIME:-0.3}
    MIN_SAME=${KB_MIN_SAME:-95}
}

compare_counts() {
    local op=$1 md=$2 old=$3 hv
    cc_rows=$(grep -cE "^\| [A-Z]" "$md")
    cc_same=$(grep -cE "^\| SAME \|" "$md")
    cc_other=$(grep -E "^\| [A-Z]" "$md" | cut -d'|' -f2 | sed 's/^ *//; s/ *$//' |
        grep -vx SAME | sort | uniq -c |
        awk '{c = $1; sub(/^ *[0-9]+ /, ""); printf "%s%s %s", (n++ ? ", " : ""), c, $0}')
    hv=$(awk -F, '!/^#/ && $NF == "host" {print $2}' "$old" | sort -u | paste -sd'|' -)
    cc_host_rows=0 cc_host_same=0
    if [ -n "$hv" ]; then
        cc_host_rows=$(grep -cE "^\| [A-Z][A-Z ]* \| $op \| ($hv) \|" "$md")
        cc_host_same=$(grep -cE "^\| SAME \| $op \| ($hv) \|" "$md")
    fi
}

# outputs SUMMARY TARBALL: a scratch folder $work for every CSV and log, and
# $OUT/SUMMARY ($summary, emptied) for the tables; `say TEXT` prints a line
# and appends it there, `pack` tars $work into $OUT/TARBALL (the device tool
# brings back at most 8 files: pack after each op, so a call cut off at its
# limit keeps what it did).
outputs() {
    work=$(mktemp -d)
    mkdir -p "$OUT"
    summary="$OUT/$1"
    : >"$summary"
    tarball="$OUT/$2"
}
say() { echo "$@" | tee -a "$summary"; }
pack() { tar -czf "$tarball" -C "$work" .; }
