#!/usr/bin/env python3
"""run.py — time the peers (torchvision, PyTorch, OpenCV) on the cases and the
input data that kbench dumped, check their outputs with `kbench verify`, and
write rows in kbench's CSV schema (variants "peer:<name>") that `kbench
report`, `plot` and `compare` read beside kbench's own rows.

  kbench run nms --sweep default -v bitmask_gpu --dump d --max-time 0 -o d/kbench.csv
  python3 peers/run.py --kbench build/kbench --op nms --dump d --out nms-peers.csv \\
      --meta-from d/kbench.csv

scripts/peers.sh does both for a list of ops. Per case and peer: one run
whose outputs `kbench verify` judges by the op's own rule against the dumped
reference (PASS / FAIL with its note; peers of other work are UNCHECKED), a
second run compared bitwise (deterministic column), then cold-L2 CUDA-event
samples under kbench's stop rule (CPU peers: wall clock). A peer that cannot
do a case is an UNSUPPORTED row with the reason; an exception an ERROR row.
Needs numpy and torch (+ torchvision, opencv for their peers) and a GPU.
"""
import argparse
import importlib
import os
import shlex
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib  # noqa: E402
from peer import Unsupported  # noqa: E402

# Each op_<op>.py: NAMES (every peer it has) and peers(case) -> [Peer].
OPS = ["preprocess", "deform_conv2d", "nms", "topk", "rpn_proposals", "yolo_decode"]


class Case:
    """One dumped case: its params and its input tensors (numpy, loaded once)."""

    def __init__(self, folder, params):
        self.folder, self.params_text = folder, params
        self.params = peerlib.parse_params(params)
        self._cache = {}

    def load(self, name):
        import numpy as np
        if name not in self._cache:
            path = os.path.join(self.folder, name + ".npy")
            if not os.path.exists(path):
                raise Unsupported("%s not dumped (kbench's dump of this case failed?)" % path)
            self._cache[name] = np.load(path)
        return self._cache[name]


def same_outputs(a, b):
    import numpy as np
    return a.keys() == b.keys() and all(
        a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes()
        if a[k].dtype.kind != "f" else np.array_equal(a[k], b[k], equal_nan=True) for k in a)


def save_outputs(case, name, outs):
    import numpy as np
    for tensor, array in outs.items():
        np.save(os.path.join(case.folder, "%s.%s.npy" % (name, tensor)), array)


def measure(peer, rule):
    timer = peerlib.CpuTimer(rule) if peer.cpu else peerlib.ColdTimer(rule)
    return timer.measure(peer.run)


def unsupported_reason(e):
    """A library's own refusal (a dtype it lacks, memory) is UNSUPPORTED."""
    import torch
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if isinstance(e, (Unsupported, NotImplementedError)):
        return text
    if isinstance(e, torch.cuda.OutOfMemoryError):
        return "out of device memory: " + text[:300]
    if isinstance(e, RuntimeError) and "not implemented for" in text:
        return text[:300]
    return None


def run_peer(args, op, case, peer, base):
    """The row of one peer on one case."""
    import torch
    row = dict(base, variant="peer:" + peer.name, note=peer.note,
               where="host" if peer.cpu else "device")
    name = "peer_" + peer.name
    try:
        first = peer.outputs(peer.run())
        torch.cuda.synchronize()
        save_outputs(case, name, first)
        again = peer.outputs(peer.run())
        row["deterministic"] = same_outputs(first, again)
        verdict = peerlib.verify(args.kbench, op, case.folder, name, peer.precision)
        row["bytes"], row["flops"] = verdict.get("bytes") or 0, verdict.get("flops") or 0
        if verdict["status"] == "ERROR":
            return dict(row, status="ERROR", reason="kbench verify: " + verdict["note"])
        if not peer.checked:
            row["status"] = "UNCHECKED"
            row["deterministic"] = None
            if peer.differs:
                row["note"] = "other semantics: %s; %s" % (peer.differs(first), peer.note)
        elif verdict["status"] == "PASS":
            row.update(status="PASS", check=verdict)
        else:
            row.update(status="FAIL", check=verdict, reason="does not match the reference")
        if peer.checked and verdict.get("note"):
            row["note"] = "%s; %s" % (verdict["note"], peer.note)
        row["stats"] = peerlib.stats(measure(peer, args.rule))
    except Exception as e:  # a peer's failure is its row, never the sweep's end
        why = unsupported_reason(e)
        if why is not None:
            return dict(row, status="UNSUPPORTED", reason=why)
        traceback.print_exc()
        return dict(row, status="ERROR", reason="%s: %s" % (type(e).__name__, str(e)[:300]))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbench", required=True, help="the kbench binary (for verify)")
    ap.add_argument("--op", required=True, choices=OPS, help="an op with a peers/op_<op>.py")
    ap.add_argument("--dump", required=True, help="the --dump DIR of a kbench run of the sweep")
    ap.add_argument("--out", required=True, help="the CSV to write (<op>-peers.csv)")
    ap.add_argument("--meta-from", help="a kbench CSV of the same run: its commit and gpu line")
    ap.add_argument("--only", help="comma list of peer names (default: all)")
    ap.add_argument("--max-noise", type=float, default=1.0, help="percent (default 1)")
    ap.add_argument("--min-samples", type=int, default=20)
    ap.add_argument("--max-time", type=float, default=2.0, help="seconds per row (default 2)")
    args = ap.parse_args()
    args.rule = peerlib.StopRule(args.min_samples, args.max_noise / 100, args.max_time)

    import torch
    versions = ["torch %s" % torch.__version__, "cuDNN %s" % torch.backends.cudnn.version()]
    for mod in ("torchvision", "cv2"):
        try:
            versions.append("%s %s" % (mod, importlib.import_module(mod).__version__))
        except ImportError:
            versions.append("%s missing" % mod)
    torch.backends.cuda.matmul.allow_tf32 = False
    command = " ".join(shlex.quote(a) for a in ["peers/run.py"] + sys.argv[1:])
    meta = peerlib.meta_lines(args.meta_from, command, ", ".join(versions))
    peaks = peerlib.peaks_of(meta)
    module = importlib.import_module("op_" + args.op)
    only = set(args.only.split(",")) if args.only else None
    out = peerlib.CsvOut(args.out, meta)
    cases = peerlib.dumped_cases(args.dump)
    if not cases:
        print("peers: no case<k>/case.txt under %s" % args.dump, file=sys.stderr)
        return 2
    counts = {}
    for k, folder, params in cases:
        case = Case(folder, params)
        base = dict(op=args.op, params=params, mode="cold", peaks=peaks)
        try:
            peers = module.peers(case)
        except Exception as e:
            why = unsupported_reason(e)
            if why is None:
                traceback.print_exc()
            for name in module.NAMES:
                row = dict(base, variant="peer:" + name, status="UNSUPPORTED" if why else "ERROR",
                           reason=why or "%s: %s" % (type(e).__name__, e))
                out.row(row)
                counts[row["status"]] = counts.get(row["status"], 0) + 1
            continue
        for peer in peers:
            if only and peer.name not in only:
                continue
            row = run_peer(args, args.op, case, peer, base)
            out.row(row)
            counts[row["status"]] = counts.get(row["status"], 0) + 1
            t = row.get("stats", {}).get("median", 0) * 1e6
            print("case%-3d %-28s %-11s %10.2f us  %s" % (k, row["variant"], row["status"], t,
                                                          (row.get("reason") or "")[:100]))
        torch.cuda.empty_cache()
    out.close()
    print("%s: %d case(s); %s" % (args.out, len(cases),
                                  ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))))
    return 1 if counts.get("ERROR") else 0  # a FAIL is a finding about the peer, not an error


if __name__ == "__main__":
    sys.exit(main())
