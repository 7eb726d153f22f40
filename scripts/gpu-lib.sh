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

# install_wheels SITE DIR...: the peers' libraries carried as wheels to a GPU
# machine that reaches no package index (docs/python.md), installed offline:
# `$PYTHON -m pip install --no-index --no-deps --target SITE` (PYTHON default
# python3), SITE then first on PYTHONPATH (exported), so that the peers'
# worker imports them and the machine's own torch stays as it is. A wheel that
# travelled in parts (NAME.whl.part00, .part01, ...) is joined first; a wheel
# named in DIR/SHA256SUMS must match its line there, else it is left out (a
# part lost or cut on the way). The summary gets what SITE then holds and
# what was left out, and why; pip's output goes to $work/wheels.log.
install_wheels() {
    local site=$1 d f base want joined log=${work:-/tmp}/wheels.log
    local -a wheels left=()
    shift
    mkdir -p "$site"
    for d in "$@"; do
        joined=$(mktemp -d)
        for f in "$d"/*.whl.part00; do
            [ -e "$f" ] || continue
            base=$(basename "${f%.part00}")
            cat "$d/$base".part[0-9][0-9] >"$joined/$base"
        done
        wheels=()
        for f in "$d"/*.whl "$joined"/*.whl; do
            [ -e "$f" ] || continue
            base=$(basename "$f")
            want=$(awk -v b="$base" '$2 == b || $2 == "*" b {print $1}' "$d/SHA256SUMS" 2>/dev/null)
            if [ -n "$want" ] && [ "$(sha256sum <"$f" | cut -d' ' -f1)" != "$want" ]; then
                left+=("$base: its parts do not match SHA256SUMS")
                continue
            fi
            wheels+=("$f")
        done
        if [ ${#wheels[@]} -eq 0 ]; then
            left+=("$d holds no wheel")
        elif ! "${PYTHON:-python3}" -m pip install --no-index --no-deps --upgrade \
            --target "$site" "${wheels[@]}" >>"$log" 2>&1; then
            left+=("pip install from $d failed: $(tail -1 "$log")")
        fi
        rm -rf "$joined"
    done
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
    local have
    have=$(cd "$site" && ls -d -- *.dist-info 2>/dev/null | sed 's/\.dist-info$//; s/-/ /' |
        sort | paste -sd, - | sed 's/,/, /g')
    say "wheels: ${have:-none} in $site${left[0]:+; left out: $(printf '%s; ' "${left[@]}" |
        sed 's/; $//')}"
}

# failed_rows CSV: how many rows of a kbench CSV FAILed, ERRORed, CRASHed,
# TIMEd OUT or were NOT_RUN, as "BUILTIN PEER" (peer rows: variant peer:NAME).
# kbench exits 1 for any of them; a peer's FAIL is a finding about that
# library (another rounding rule), not a failure of the run. The first five
# columns (op, variant, params, mode, status) never hold a comma.
failed_rows() {
    awk -F, '!/^#/ && $1 != "op" && $5 ~ /^(FAIL|ERROR|CRASH|TIMEOUT|NOT_RUN)$/ {
        if ($2 ~ /^peer:/) p++; else b++ }
        END { printf "%d %d\n", b, p }' "$1"
}
