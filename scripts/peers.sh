#!/usr/bin/env bash
# peers.sh — the peers alone (the library files of peers/: torchvision,
# PyTorch, torch.compile, OpenCV, CV-CUDA, kornia) on OP's sweep, into
# OUTDIR/<op>-peers.csv: `kbench run OP --peers -v 'peer:*'`. The same rows
# come with the built-in ones from `kbench run OP --peers` (what
# scripts/gpu-check.sh's run stage does); this is for a file of peers only.
#
#   scripts/peers.sh build/kbench results/gpu-check nms topk
#   KB_SWEEP=smoke KB_MAX_TIME=0.3 PYTHON=python3 scripts/peers.sh build/kbench /tmp/p preprocess
#
# Exit 0 when every op's peers ran (rows may FAIL: a finding about the peer).
set -u -o pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
    echo "usage: scripts/peers.sh KBENCH OUTDIR OP..." >&2
    exit 2
fi
kbench=$1 outdir=$2
shift 2
mkdir -p "$outdir"
status=0
for op in "$@"; do
    "$kbench" run "$op" --peers --python "${PYTHON:-python3}" -v 'peer:*' \
        --sweep "${KB_SWEEP:-default}" --max-time "${KB_MAX_TIME:-1}" -q \
        -o "$outdir/$op-peers.csv" --overwrite >"$outdir/peers-$op.log" 2>&1
    rc=$?
    [ $rc -le 1 ] || status=1
    tail -1 "$outdir/peers-$op.log"
done
exit $status
