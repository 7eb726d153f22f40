#!/usr/bin/env bash
# sanitize.sh — compute-sanitizer memcheck, racecheck, initcheck and synccheck
# over every variant of every op on its "sanitize" sweep: `kbench check OP -v
# VARIANT --sweep sanitize --no-isolate` (correctness runs only, no timing; in
# one process, so that the tool sees every launch). Each op's sanitize sweep
# (kernels/<op>.c, `kbench list OP`) holds the fewest small cases that reach
# every branch of every variant that racecheck can get through; its
# "sanitize_large" sweep holds the rest, run under the other three tools.
#
#   scripts/sanitize.sh                          # every op x the 4 tools
#   scripts/sanitize.sh nms topk                 # only these ops
#   KB_SAN_TOOLS="memcheck synccheck" scripts/sanitize.sh preprocess
#   KB_SAN_VARIANTS='^nhwc_ws_' scripts/sanitize.sh deform_conv2d  # these variants only
#
# Writes $OUT/summary.md and sanitize.tar.gz (default OUT: results/sanitize).
# Exit 0 when every run is clean; 1 on any sanitizer report, kbench failure or
# timeout; 2 without compute-sanitizer or a build. The knobs: below.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
# KB_SAN_JOBS runs at once (default 16), KB_SAN_TIMEOUT seconds per run
# (default 240: a run killed there is a TIMEOUT, not clean), KB_SAN_SWEEP the
# sweep (default sanitize; smoke is far slower), KB_SAN_RACE_CASES the first N
# cases only under racecheck (default: all), KB_BUILD the build folder
# (default build; kbench is built there when missing). Each run's CPU
# reference gets OMP_NUM_THREADS (default: cores / KB_SAN_JOBS, at least 1).
# summary.md: a table of op, variant, tool, result — clean, N reports, TIMEOUT
# or kbench's failing exit code — seconds and rows checked; the first reports
# of each run that is not clean; last, the line "N runs, N clean, N with
# reports, N timeouts, N failed, wall S s". sanitize.tar.gz: every tool log
# and kbench log.
OUT=${OUT:-results/sanitize}
BUILD=${KB_BUILD:-build}
TOOLS=${KB_SAN_TOOLS:-racecheck memcheck initcheck synccheck} # the slowest first
JOBS=${KB_SAN_JOBS:-16}
LIMIT=${KB_SAN_TIMEOUT:-240}
SWEEP=${KB_SAN_SWEEP:-sanitize}
RACE_CASES=${KB_SAN_RACE_CASES:-}
threads=$(($(nproc) / JOBS))
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$((threads > 0 ? threads : 1))}
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$san" ] || { echo "sanitize.sh: compute-sanitizer not found"; exit 2; }
if [ ! -x "$BUILD/kbench" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        >/dev/null && ninja -C "$BUILD" kbench >/dev/null || { echo "sanitize.sh: build failed"; exit 2; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Stopped itself (an outer timeout, ^C), the script stops its runs, and each
# run its `timeout`, which passes the signal on to compute-sanitizer and
# kbench: `timeout` leads a process group of its own, so a signal to this
# script's group alone would leave them running on the GPU.
stop_runs() {
    kill -TERM $(jobs -p) 2>/dev/null
    wait
}
trap 'stop_runs; exit 143' TERM
trap 'stop_runs; exit 130' INT
mkdir -p "$OUT"
ops=("$@")
[ ${#ops[@]} -eq 0 ] && mapfile -t ops < <("$BUILD/kbench" list --names | grep -v /)

# Each report opens with one of these lines (memcheck, initcheck, racecheck, synccheck).
report_re="^========= (Invalid|Uninitialized|Host API|Error|Program hit|Barrier|Leaked|Race)"

# One variant under one tool (im2col: a value of deform_conv2d's im2col axis,
# or empty): the tool's log, kbench's log and CSV, and a result row of the
# summary table.
# A fifth argument K runs case K of the sweep alone (racecheck: see below).
# A sixth argument names another sweep than $SWEEP (the op's sanitize_large).
run_one() {
    local op=$1 variant=$2 tool=$3 im2col=$4 one=${5:-} sweep=${6:-$SWEEP} extra=() cases=() axes=()
    local name=$2
    [ -n "$im2col" ] && axes=(-a "im2col=$im2col") name="$variant [im2col=$im2col]"
    [ "$sweep" != "$SWEEP" ] && name="$name [$sweep]"
    local base="$work/$op.$variant${im2col:+.$im2col}.$tool${one:+.case$one}"
    [ "$sweep" != "$SWEEP" ] && base="$work/$op.$variant${im2col:+.$im2col}.$sweep.$tool"
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    [ "$tool" = racecheck ] && [ -n "$RACE_CASES" ] && cases=(--max-cases "$RACE_CASES")
    [ -n "$one" ] && cases=(--first-case "$one" --max-cases 1)
    local t0=$SECONDS run=
    trap 'kill -TERM $run 2>/dev/null; exit 143' TERM INT # see stop_runs
    timeout -s KILL "$LIMIT" "$san" --tool "$tool" "${extra[@]}" \
        --error-exitcode 99 --print-limit 20 --log-file "$base.san.log" \
        "$BUILD/kbench" check "$op" -v "$variant" --sweep "$sweep" ${axes[@]+"${axes[@]}"} \
        ${cases[@]+"${cases[@]}"} --no-isolate -q -o "$base.csv" >"$base.kbench.log" 2>&1 &
    run=$!
    wait "$run" 2>/dev/null # no "Killed" notice for a TIMEOUT
    local rc=$? result reports rows
    # The tool's own count where it prints one, else the reports' first lines.
    reports=$(grep -oE "ERROR SUMMARY: [0-9]+" "$base.san.log" 2>/dev/null | tail -1 | grep -oE "[0-9]+$")
    [ -n "$reports" ] || reports=$(grep -cE "$report_re" "$base.san.log" 2>/dev/null)
    case $rc in
    0) result=clean ;;
    99) result="$((reports > 0 ? reports : 1)) reports" ;;
    137) result="TIMEOUT" ;;
    *) result="kbench exit $rc" ;;
    esac
    rows=$(grep -vc '^#' "$base.csv" 2>/dev/null) # the header, then one line per row
    rows=$((rows > 0 ? rows - 1 : 0))
    echo "| $op | $name | $tool | $result | $((SECONDS - t0)) | $rows |" >"$base.result"
}

# racecheck is the slow tool (10-100x on kernels that live in shared
# memory): it runs each case of a variant in a process of its own, so the
# cases of one variant share the JOBS slots instead of running end to end
# (one process took over 150 s on topk's, rpn's and yolo's sweeps), and
# the runs of a variant are joined into one row of the summary afterwards:
# the four tools over every variant fit one device call of a few minutes.
# Ops with a sanitize_large sweep (cases that reach size-dependent branches,
# too slow for racecheck: its cost grows with the shared-memory traffic).
large=()
for op in "${ops[@]}"; do
    # grep reads all of it: grep -q would leave at the first match, and kbench's
    # next write would die of SIGPIPE, which pipefail takes for a failure.
    "$BUILD/kbench" list "$op" 2>/dev/null | grep -E "^    sanitize_large " >/dev/null && large+=("$op")
done
# The variants with device code, op/variant: host variants (`kbench list
# --names --host`) have none for the tools to watch; the ASan + UBSan CPU
# suite (scripts/test-asan.sh) is theirs.
mapfile -t device_variants < <("$BUILD/kbench" list --names | grep / |
    grep -vxF -f <("$BUILD/kbench" list --names --host))
start=$SECONDS
for tool in $TOOLS; do
    for op in "${ops[@]}"; do
        mapfile -t variants < <(printf '%s\n' "${device_variants[@]}" | grep "^$op/" | cut -d/ -f2 |
            grep -E "${KB_SAN_VARIANTS:-.}")
        for variant in "${variants[@]}"; do
            # explicit_nhwc* once more with im2col=window: only the sweep's largest
            # case picks the windowed im2col by itself.
            modes=("")
            [ "$op" = deform_conv2d ] && [[ $variant == explicit_nhwc* ]] && modes+=(window)
            each=("")
            if [ "$tool" = racecheck ] && [ -z "$RACE_CASES" ]; then
                n=$("$BUILD/kbench" check "$op" -v "$variant" --sweep "$SWEEP" --dry-run 2>/dev/null |
                    wc -l)
                mapfile -t each < <(seq 0 $((n - 1)))
            fi
            for im2col in "${modes[@]}"; do
                for one in "${each[@]}"; do
                    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
                    run_one "$op" "$variant" "$tool" "$im2col" "$one" &
                done
                # The op's cases too large for racecheck, under the other tools.
                if [ "$tool" != racecheck ] && [ "$SWEEP" = sanitize ] && [[ " ${large[*]} " == *" $op "* ]]; then
                    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
                    run_one "$op" "$variant" "$tool" "$im2col" "" sanitize_large &
                fi
            done
        done
    done
done
wait
wall=$((SECONDS - start))
# One row per variant and tool: the per-case runs' worst result, their
# longest time and their rows together.
for first in "$work"/*.case0.result; do
    [ -e "$first" ] || continue
    stem=${first%.case0.result}
    parts=("$stem".case*.result)
    IFS='|' read -r _ op name tool _ <"$first"
    worst=clean secs=0 rows=0 reports=0
    for f in "${parts[@]}"; do
        IFS='|' read -r _ _ _ _ res t r _ <"$f"
        res=$(echo $res) t=$(echo $t) r=$(echo $r)
        [ "$t" -gt "$secs" ] && secs=$t
        rows=$((rows + r))
        case $res in
        TIMEOUT) worst=TIMEOUT ;;
        *reports) reports=$((reports + ${res%% *})); [ "$worst" = clean ] && worst=reports ;;
        clean) ;;
        *) [ "$worst" = clean ] || [ "$worst" = reports ] && worst=$res ;;
        esac
    done
    [ "$worst" = reports ] && worst="$reports reports"
    echo "|$op|$name|$tool| $worst | $secs | $rows |" | sed -E 's/\| +/| /g; s/ +\|/ |/g' \
        >"$stem.result"
    for f in "${parts[@]}"; do mv "$f" "${f%.result}.part"; done
done

results=("$work"/*.result)
[ -e "${results[0]}" ] || { echo "sanitize.sh: no run (no variant of: ${ops[*]})"; exit 2; }
count() { cat "${results[@]}" | grep -cE "$1"; }
n=${#results[@]}
clean=$(count "\| clean \|")
reported=$(count "\| [0-9]+ reports \|")
timeouts=$(count "\| TIMEOUT \|")
failed=$(count "\| kbench exit [0-9]+ \|")
last="$n runs, $clean clean, $reported with reports, $timeouts timeouts, $failed failed, wall $wall s"
{
    echo "# compute-sanitizer over the $SWEEP sweeps"
    echo
    gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
    echo "$("$san" --version | tail -1);${gpu:+ $gpu;} $JOBS at once, ${LIMIT} s each at most," \
        "OMP_NUM_THREADS=$OMP_NUM_THREADS${RACE_CASES:+; racecheck: the first $RACE_CASES cases}"
    echo
    echo "Host variants ([host] in kbench list) are not run: no device code; scripts/test-asan.sh covers them."
    echo
    echo "| op | variant | tool | result | seconds | rows |"
    echo "|---|---|---|---|---:|---:|"
    cat "${results[@]}"
    # The first reports of each run that is not clean, so that the summary says what.
    for f in "${results[@]}"; do
        grep -q "| clean |" "$f" && continue
        b=${f%.result}
        echo
        echo "## $(basename "$b")"
        echo '```'
        grep -m 8 -A2 -E "$report_re" "$b.san.log" 2>/dev/null | grep -vE "Host Frame|Saved host"
        tail -3 "$b.kbench.log"
        echo '```'
    done
    echo
    echo "$last"
} >"$OUT/summary.md"
tar -czf "$OUT/sanitize.tar.gz" -C "$work" .
cat "${results[@]}" | grep -v "| clean |"
echo "sanitize.sh: $last; see $OUT/summary.md"
[ "$clean" -eq "$n" ]
