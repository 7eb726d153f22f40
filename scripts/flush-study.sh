#!/usr/bin/env bash
# flush-study.sh — on a GPU machine: which `--flush` kind makes kbench's cold
# mode agree with Nsight Compute's `--cache-control all` (flush and invalidate
# L2 before each kernel). For each case, kbench times the variant in cold mode
# once per flush kind (--max-time 0.3), and ncu measures the same case's
# kernels (gpu__time_duration.sum, clocks not locked, caches flushed); the
# table compares kbench's median with ncu's median per launch (the sum of the
# variant's kernels in one launch). The kind whose ratio sits nearest 1 on
# the bandwidth-bound case, without moving the latency-bound ones, is the one
# for KB_FLUSH_DEFAULT (harness/run/l2_flush.h). About 3 minutes on an H100.
#
#   OUT=/tmp/flush KB_BUILD=build scripts/flush-study.sh          # every case
#   OUT=/tmp/flush scripts/flush-study.sh preprocess16 topk-rpn5  # these only
#   scripts/flush-study.sh --dry-run                              # the commands, no GPU
#
# Cases: preprocess16 (bandwidth-bound: preprocess/bilinear_vec, 16 images
# 1080p -> 640, f32), topk-rpn5 (latency-bound: topk/radix_select, rpn5
# segments, k=1000, batch 1), nms25200 (latency-bound: nms/blockwalk, 25200
# boxes, IoU 0.5); each is taken from its op's default sweep (kbench run OP
# --dry-run), so it is the case the README's tables time.
#
# Writes under $OUT: kb-<case>-<kind>.csv (kbench's rows), ncu-<case>-check.csv
# (ncu on `kbench check`: two launches, whose kernel sequence is one launch's),
# ncu-<case>-run.csv (ncu on a short run: the launches the median is taken
# over), and flush-study.md (the table, also printed).
# A ratio above 1 also holds the gaps between a multi-kernel variant's kernels,
# which kbench's events include and ncu's kernel durations do not: compare the
# kinds within a case, not the cases with each other.
set -u
cd "$(dirname "$0")/.." || exit 2
usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }
dry=0
cases=()
for a in "$@"; do
    case $a in
    -h | --help) usage; exit 0 ;;
    -n | --dry-run) dry=1 ;;
    preprocess16 | topk-rpn5 | nms25200) cases+=("$a") ;;
    *) echo "flush-study.sh: unknown argument '$a' (cases: preprocess16 topk-rpn5 nms25200;" \
        "options: --dry-run, --help)" >&2; exit 2 ;;
    esac
done
[ ${#cases[@]} -eq 0 ] && cases=(preprocess16 topk-rpn5 nms25200)
OUT=${OUT:-results/flush-study}
BUILD=${KB_BUILD:-build}
KB="$BUILD/kbench"
kinds=(write read write-read discard reset)
[ -x "$KB" ] || { echo "flush-study.sh: no $KB (build it, or set KB_BUILD)" >&2; exit 2; }
if [ $dry -eq 0 ]; then
    command -v ncu >/dev/null || { echo "flush-study.sh: ncu is not on PATH" >&2; exit 2; }
    command -v python3 >/dev/null || { echo "flush-study.sh: python3 is not on PATH" >&2; exit 2; }
    mkdir -p "$OUT" || exit 2
fi

# case name -> "op variant" and the params line of the op's default sweep it is
op_of() {
    case $1 in
    preprocess16) echo "preprocess bilinear_vec" ;;
    topk-rpn5) echo "topk radix_select" ;;
    nms25200) echo "nms blockwalk" ;;
    esac
}
pick() { # the params of the first default-sweep pair of op/variant holding every token given
    local op=$1 v=$2
    shift 2
    "$KB" run "$op" -v "$v" --dry-run 2>/dev/null | while IFS=$'\t' read -r _ _ params; do
        local ok=1
        for t in "$@"; do [[ " $params " == *" $t "* ]] || ok=0; done
        [ $ok -eq 1 ] && { echo "$params"; break; }
    done
}
params_of() {
    case $1 in
    preprocess16) pick preprocess bilinear_vec n=16 in_h=1080 in_w=1920 out_h=640 out_w=640 dtype=f32 ;;
    topk-rpn5) pick topk radix_select segments=rpn5 k=1000 batch=1 ;;
    nms25200) pick nms blockwalk n=25200 iou=0.5 classes=1 dist=uniform ;;
    esac
}

run() { # echo the command; run it unless --dry-run
    echo "+ $*" >&2
    [ $dry -eq 1 ] || "$@"
}

for c in "${cases[@]}"; do
    read -r op v <<<"$(op_of "$c")"
    params=$(params_of "$c")
    [ -n "$params" ] || { echo "flush-study.sh: $c: no such case in $op's default sweep" >&2; exit 1; }
    axes=()
    for t in $params; do axes+=(-a "$t"); done
    echo "== $c: $op/$v {$params}" >&2
    for k in "${kinds[@]}"; do
        run "$KB" run "$op" -v "$v" "${axes[@]}" --flush "$k" --max-time 0.3 -q --overwrite \
            -o "$OUT/kb-$c-$k.csv"
    done
    ncu=(ncu --cache-control all --clock-control none --metrics gpu__time_duration.sum
        --print-units base --csv --nvtx --nvtx-include "regex:.*$v.*/")
    run "${ncu[@]}" --log-file "$OUT/ncu-$c-check.csv" "$KB" check "$op" -v "$v" "${axes[@]}" \
        --no-isolate -q
    # one launch per sample (a memset flush: no kernel of kbench's own), the
    # warm-up's and 5 samples' launches: --max-noise 100 stops at the 5th
    run "${ncu[@]}" --log-file "$OUT/ncu-$c-run.csv" "$KB" run "$op" -v "$v" "${axes[@]}" \
        --no-check --flush write --min-samples 5 --max-noise 100 --max-time 60 --no-isolate -q
done
[ $dry -eq 1 ] && exit 0

python3 - "$OUT" "${cases[@]}" -- "${kinds[@]}" <<'EOF' | tee "$OUT/flush-study.md"
import csv, statistics, sys

out = sys.argv[1]
sep = sys.argv.index("--")
cases, kinds = sys.argv[2:sep], sys.argv[sep + 1:]

def ncu_kernels(path):
    """(kernel name, ns) in launch order from an ncu --csv log."""
    rows = [l for l in open(path, errors="replace") if l.startswith('"')]
    got = []
    for r in csv.DictReader(rows):
        if r.get("Metric Name") == "gpu__time_duration.sum":
            got.append((r["Kernel Name"], float(r["Metric Value"].replace(",", ""))))
    return got

def per_launch(case):
    """ncu's median of the variant's kernels summed per launch (us), launches."""
    check = [n for n, _ in ncu_kernels(f"{out}/ncu-{case}-check.csv")]
    # The check runs the variant twice: the largest k whose last 2k kernels are
    # two equal halves is one launch (kernels of its setup come before them).
    k = max((k for k in range(1, len(check) // 2 + 1) if check[-2 * k:-k] == check[-k:]),
            default=0)
    if k == 0:
        return None, 0
    pattern = check[-k:]
    run = [x for x in ncu_kernels(f"{out}/ncu-{case}-run.csv") if x[0] in set(pattern)]
    sums = []
    while len(run) >= k and [n for n, _ in run[-k:]] == pattern:
        sums.append(sum(t for _, t in run[-k:]) / 1e3)
        run = run[:-k]
    return (statistics.median(sums) if sums else None), len(sums)

def kbench_median(case, kind):
    try:
        rows = [l for l in open(f"{out}/kb-{case}-{kind}.csv") if not l.startswith("#")]
    except OSError:
        return None, "no file"
    for r in csv.DictReader(rows):
        if r["status"] != "PASS":
            return None, r["status"] + (": " + r["reason"] if r["reason"] else "")
        return float(r["median_us"]), ""
    return None, "no row"

print("| case | flush kind | kbench median (us) | ncu median (us) | ratio |")
print("|---|---|---|---|---|")
for c in cases:
    ncu, n = per_launch(c)
    for kind in kinds:
        kb, why = kbench_median(c, kind)
        ncu_text = f"{ncu:.2f} ({n} launches)" if ncu else "n/a"
        kb_text = f"{kb:.2f}" if kb is not None else why
        ratio = f"{kb / ncu:.3f}" if kb and ncu else "n/a"
        print(f"| {c} | {kind} | {kb_text} | {ncu_text} | {ratio} |")
EOF
