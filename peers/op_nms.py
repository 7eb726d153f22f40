"""op_nms.py — torchvision's greedy NMS on kbench's boxes.

  torchvision_nms          torchvision.ops.nms (class-agnostic cases only:
                           on classes > 1 it would be other work, no row)
  torchvision_batched_nms  torchvision.ops.batched_nms with the class ids
                           (int64, converted before timing), every case
Both return the keep indices by score descending; max_out > 0 keeps the
first max_out, as a caller slices it. torchvision copies its suppression
mask to the host inside the call: its time includes that synchronisation.
"""
from peer import Peer

NAMES = ["torchvision_nms", "torchvision_batched_nms"]


def _keep_outputs(cap):
    import numpy as np

    def outputs(keep):
        k = keep[:cap].to("cpu").numpy().astype(np.int32)
        padded = np.full(cap, -1, dtype=np.int32)
        padded[:len(k)] = k
        return {"keep": padded, "count": np.array([len(k)], dtype=np.int32)}
    return outputs


def peers(ctx):
    import torch
    import torchvision
    from torchvision.ops import batched_nms, nms
    p = ctx.params
    n, max_out, classes, iou = int(p["n"]), int(p["max_out"]), int(p["classes"]), float(p["iou"])
    cap = max_out if 0 < max_out < n else n
    boxes = torch.from_numpy(ctx.load("boxes")).cuda()
    scores = torch.from_numpy(ctx.load("scores")).cuda()
    idxs = torch.from_numpy(ctx.load("classes")).cuda().long()
    sl = slice(0, max_out) if max_out > 0 else slice(None)
    version = "torchvision %s" % torchvision.__version__
    out = []
    if classes == 1:
        out.append(Peer("torchvision_nms", lambda: nms(boxes, scores, iou)[sl],
                        _keep_outputs(cap), note=version + " ops.nms"))
    out.append(Peer("torchvision_batched_nms", lambda: batched_nms(boxes, scores, idxs, iou)[sl],
                    _keep_outputs(cap), note=version + " ops.batched_nms"))
    return out
