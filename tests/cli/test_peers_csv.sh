#!/usr/bin/env bash
# peers/peerlib.py writes kbench's CSV schema, statistics and stop rule as
# kbench does: the CSV it writes reads back through compare and report.
# peerlib imports the standard library only; without python3 this exits 77
# (CTest: skipped). Run by CTest with KBENCH and KB_SOURCE_DIR set.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
if ! command -v python3 >/dev/null; then
    echo "python3 not found: skipped"
    exit 77
fi

python3 - "$tmp/nms-peers.csv" "$src/peers" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import peerlib
rule = peerlib.StopRule(min_samples=3, max_noise=0.01, max_time_s=10)
assert not rule.done([1.0, 1.0], 0.1) and rule.done([1.0, 1.0, 1.0], 0.1)
assert not rule.done([1.0, 2.0, 1.0], 0.1) and rule.done([1.0, 2.0, 1.0], 10)
st = peerlib.stats([4e-6, 1e-6, 3e-6, 2e-6])  # type-7 percentiles, as stats.c
assert abs(st["median"] - 2.5e-6) < 1e-12 and abs(st["p10"] - 1.3e-6) < 1e-12
assert peerlib.parse_params("n=5 image=a b.jpg iou=0.5") == {"n": "5", "image": "a b.jpg", "iou": "0.5"}
meta = ["kbench abc | 2026-01-01T00:00:00Z | host h", "command: peers/run.py --op nms",
        "gpu: X | peaks: copy 3000 GB/s, sgemm 50000 GFLOP/s", "peers: torch stub"]
assert peerlib.peaks_of(meta) == (3000.0, 50000.0)
out = peerlib.CsvOut(sys.argv[1], meta)
base = dict(op="nms", params="n=1000 iou=0.5 classes=1 max_out=0 dist=uniform", peaks=(3000.0, 50000.0),
            bytes=24000, flops=0, stats=peerlib.stats([500e-6, 510e-6, 490e-6]))
chk = {"rel_l2": 0, "max_abs": 0, "max_rel": 0, "tolerance": 0}
out.row(dict(base, variant="peer:torchvision_nms", status="PASS", check=chk, deterministic=True,
             note='torchvision 0.26 ops.nms, "greedy", as users call it'))
out.row(dict(base, variant="peer:torch_topk", status="FAIL", check=chk, deterministic=True,
             reason="does not match the reference", note="count 4 vs 3 expected, ties"))
out.row(dict(base, variant="peer:opencv_cpu", status="UNSUPPORTED", stats=None,
             reason="dtype=bf16: kbench cannot dump it, as .npy"))
out.close()
PY
check "peerlib's assertions or its CSV writer failed (traceback above)" test $? -eq 0
expect 5 "1 STILL FAILING, 2 SAME.*STILL FAILING +nms +peer:torch_topk" -- \
    compare "$tmp/nms-peers.csv" "$tmp/nms-peers.csv"
cp "$tmp/nms-peers.csv" "$tmp/nms-peers-2.csv"
sed -i 's/,500.0000,490.0000/,800.0000,490.0000/' "$tmp/nms-peers-2.csv"
expect 5 "SLOWER +nms +peer:torchvision_nms .*\+60\.0%" -- \
    compare "$tmp/nms-peers.csv" "$tmp/nms-peers-2.csv" --max-noise 100
# gnuplot hidden: the text of the report, whether gnuplot is there or not
prefix=(env PATH=/nonexistent)
expect 4 "report.md" -- report $d/nms.csv "$tmp/nms-peers.csv" -o "$tmp/report-peers"
prefix=()
# the peer's time on the same case becomes the winner's "vs" column; refusals and failures are listed, a failure with its time
expect_file "$tmp/report-peers/report.md" "^\| \(defaults\) \| blockwalk \| 18.90 us ± 0.6% \|.*\| 26.46× \|"
expect_file "$tmp/report-peers/report.md" "^\| peer:opencv_cpu \| \(defaults\) \| UNSUPPORTED \| - \| dtype=bf16: kbench cannot dump it, as .npy"
expect_file "$tmp/report-peers/report.md" "^\| peer:torch_topk \| \(defaults\) \| FAIL \| [0-9.]+ (us|ms) \| does not match the reference \| count 4 vs 3 expected, ties"


# The yolo peer (ultralytics' order: NMS, then clip) is other semantics; its
# note counts the detections where it and the op's reference differ.
python3 - "$src/peers" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from op_yolo_decode import differing_detections
ref = [[[0, 0, 10, 10, 0.9, 1], [5, 5, 20, 20, 0.8, 2], [0, 0, 0, 0, 0, 0]]]
same = {"count": [2], "dets": [[[0, 0, 10.005, 10, 0.9, 1], [5, 5, 20, 20, 0.8, 2]]]}
assert differing_detections(same, [2], ref).startswith("0 detections differ"), "within 0.01 px"
moved = {"count": [2], "dets": [[[0, 0, 10.5, 10, 0.9, 1], [5, 5, 20, 20, 0.8, 2]]]}
assert differing_detections(moved, [2], ref) == \
    "2 detections differ (1 only here, 1 only in the reference) of 2", "a moved box"
extra = {"count": [3], "dets": [[[0, 0, 10, 10, 0.9, 1], [5, 5, 20, 20, 0.8, 2], [1, 1, 2, 2, 0.7, 0]]]}
assert differing_detections(extra, [2], ref).startswith("1 detections differ (1 only here, 0"), "kept"
fewer = {"count": [1], "dets": [[[5, 5, 20, 20, 0.8, 2]]]}
assert differing_detections(fewer, [2], ref).startswith("1 detections differ (0 only here, 1"), "lost"
PY
check "the yolo peer's count of differing detections is wrong (traceback above)" test $? -eq 0
finish peers_csv
