"""op_yolo_decode.py — YOLOv5 post-processing as its users write it:
ultralytics' non_max_suppression in PyTorch, one image at a time.

  torch_ultralytics  obj > conf; cls *= obj; best class; score > conf;
                     argsort(descending)[:max_det]; boxes xywh -> xyxy
                     in network pixels; torchvision.ops.nms on them offset
                     by class * 7680 (ultralytics' max_wh); the first
                     max_out; then mapped to the source image by the
                     letterbox's inverse affine (d2i) and clipped, as
                     ultralytics' scale_boxes does AFTER the NMS
The op clips before its NMS (kernels/yolo_decode.h), so a box cut by the image
border can suppress differently: the peer is other semantics (UNCHECKED), and
its note counts the detections where it and the op's reference differ. The
thresholds are strict (>) where the op's are >=: they differ only on a score
exactly at conf.
"""
from peer import Peer

NAMES = ["torch_ultralytics"]

MAX_WH = 7680.0  # ultralytics' class offset


def peers(ctx):
    import numpy as np
    import torch
    import torchvision
    from torchvision.ops import nms
    p = ctx.params
    b, conf, iou = int(p["b"]), float(p["conf"]), float(p["iou"])
    max_det, max_out = int(p["max_det"]), int(p["max_out"])
    src_w, src_h = float(p["src_w"]), float(p["src_h"])
    pred = torch.from_numpy(ctx.load("pred")).cuda()
    d2i = torch.from_numpy(ctx.load("d2i")).cuda()

    def one(x, m):
        x = x[x[:, 4] > conf]
        if not x.shape[0]:
            return x.new_zeros((0, 6))
        cls = x[:, 5:] * x[:, 4:5]
        score, j = cls.max(1)
        x, score, j = x[score > conf], score[score > conf], j[score > conf]
        order = score.argsort(descending=True)[:max_det]
        x, score, j = x[order], score[order], j[order]
        hw, hh = x[:, 2] * 0.5, x[:, 3] * 0.5
        xs = torch.stack([x[:, 0] - hw, x[:, 0] + hw], 1)
        ys = torch.stack([x[:, 1] - hh, x[:, 1] + hh], 1)
        net = torch.stack([xs[:, 0], ys[:, 0], xs[:, 1], ys[:, 1]], 1)
        c = j.float()
        keep = nms(net + c[:, None] * MAX_WH, score, iou)[:max_out]
        xs, ys = xs[keep], ys[keep]
        sx = (m[0] * xs + m[1] * ys + m[2]).clamp(0, src_w)
        sy = (m[3] * xs + m[4] * ys + m[5]).clamp(0, src_h)
        boxes = torch.stack([sx[:, 0], sy[:, 0], sx[:, 1], sy[:, 1]], 1)
        return torch.cat([boxes, score[keep, None], c[keep, None]], 1)

    def run():
        return [one(pred[i], d2i[i]) for i in range(b)]

    def outputs(per_image):
        dets = np.zeros((b, max_out, 6), dtype=np.float32)
        count = np.zeros(b, dtype=np.int32)
        for i, d in enumerate(per_image):
            d = d.cpu().numpy()
            dets[i, :len(d)] = d
            count[i] = len(d)
        return {"count": count, "dets": dets}

    def differs(out):
        return "%s of the op's reference" % differing_detections(
            out, ctx.load("reference.count"), ctx.load("reference.dets"))

    return [Peer("torch_ultralytics", run, outputs, checked=False, differs=differs,
                 note="torch %s + torchvision %s nms, ultralytics non_max_suppression (NMS on "
                      "network-pixel boxes, mapped and clipped after)" % (
                          torch.__version__, torchvision.__version__))]


def differing_detections(out, ref_count, ref_dets, px=1e-2):
    """'D detections differ (A only here, B only in the reference) of N': a
    detection is the same when class and score are equal and every
    coordinate is within px of the other's."""
    only_here = only_ref = total = 0
    for i in range(len(ref_count)):
        mine = [tuple(d) for d in out["dets"][i][:int(out["count"][i])]]
        ref = [tuple(d) for d in ref_dets[i][:int(ref_count[i])]]
        total += len(ref)

        def same(a, b):
            return a[4] == b[4] and a[5] == b[5] and all(abs(a[k] - b[k]) <= px for k in range(4))
        unmatched = list(ref)
        for d in mine:
            hit = next((k for k, r in enumerate(unmatched) if same(d, r)), None)
            if hit is None:
                only_here += 1
            else:
                unmatched.pop(hit)
        only_ref += len(unmatched)
    return "%d detections differ (%d only here, %d only in the reference) of %d" % (
        only_here + only_ref, only_here, only_ref, total)
