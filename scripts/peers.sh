#!/usr/bin/env bash
# peers.sh — time the peers (torchvision, PyTorch, OpenCV: peers/) on the same
# cases and the same input data as kbench, and write OUTDIR/<op>-peers.csv in
# kbench's CSV schema (variants "peer:<name>") for `kbench report`.
#
#   scripts/peers.sh build/kbench results/gpu-check nms topk
#   KB_SWEEP=smoke KB_MAX_TIME=0.3 scripts/peers.sh build/kbench /tmp/p preprocess
#
# Per op: `kbench run OP --sweep S -v <its first variant> --dump DIR` writes
# each case's inputs and CPU reference as .npy (seed 1, as every kbench run,
# so case k's inputs are those of case k in OP.csv; one timing sample only,
# and the run's CSV gives the peers their '#' lines: commit, GPU, peaks);
# then peers/run.py runs each peer on them, judges its outputs with
# `kbench verify` and times it. Needs python3 with numpy, torch, torchvision
# (and opencv for the CPU preprocessing peer) and a GPU. Logs: OUTDIR/peers-<op>.log.
# Exit 0 when every op's peers ran (rows may FAIL: a finding about the peer).
set -u -o pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
    echo "usage: scripts/peers.sh KBENCH OUTDIR OP..." >&2
    exit 2
fi
kbench=$1 outdir=$2
shift 2
SWEEP=${KB_SWEEP:-default}
MAX_TIME=${KB_MAX_TIME:-1}
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
mkdir -p "$outdir"
if ! "$PY" -c "import numpy, torch, torchvision" 2>/dev/null; then
    echo "peers: $PY lacks numpy/torch/torchvision: no peer rows" >&2
    exit 3
fi
status=0
for op in "$@"; do
    if [ ! -f "peers/op_$op.py" ]; then
        echo "peers: $op has no peers (no peers/op_$op.py): skipped"
        continue
    fi
    log="$outdir/peers-$op.log"
    dump=$(mktemp -d "${TMPDIR:-/tmp}/kbench-dump-$op.XXXXXX")
    variant=$("$kbench" list --names | grep -m1 "^$op/" | cut -d/ -f2)
    {
        echo "## $op: dump (kbench run $op --sweep $SWEEP -v $variant)"
        "$kbench" run "$op" --sweep "$SWEEP" -v "$variant" --dump "$dump" --max-time 0 \
            --min-samples 1 -q -o "$dump/kbench.csv"
        echo "## $op: peers"
        "$PY" peers/run.py --kbench "$kbench" --op "$op" --dump "$dump" \
            --out "$outdir/$op-peers.csv" --meta-from "$dump/kbench.csv" --max-time "$MAX_TIME"
    } >"$log" 2>&1 || status=1
    tail -1 "$log"
    rm -rf "$dump"
done
exit $status
