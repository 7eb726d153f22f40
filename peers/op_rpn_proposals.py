"""op_rpn_proposals.py — mmdetection's RPNHead._get_bboxes_single as its
users run it: PyTorch ops and torchvision's batched_nms, one image.

  torch_mmdet  per level: scores.sort(descending) and the first nms_pre;
               cat; delta2bbox (means 0, stds 1, dw/dh clamped to
               |log(16/1000)|, clamped to the image); drop boxes with w or
               h <= min_bbox_size; batched_nms by level id; the first
               max_per_img
"""
import math

from peer import Peer

NAMES = ["torch_mmdet"]


def peers(ctx):
    import numpy as np
    import torch
    import torchvision
    from torchvision.ops import batched_nms
    p = ctx.params
    img_h, img_w = float(p["img_h"]), float(p["img_w"])
    nms_pre, max_out = int(p["nms_pre"]), int(p["max_per_img"])
    iou, min_size = float(p["iou"]), float(p["min_bbox_size"])
    scores = torch.from_numpy(ctx.load("scores")).cuda()
    deltas = torch.from_numpy(ctx.load("deltas")).cuda()
    anchors = torch.from_numpy(ctx.load("anchors")).cuda()
    offsets = [int(o) for o in ctx.load("level_offsets")]
    max_ratio = abs(math.log(16 / 1000))

    def delta2bbox(a, d):
        px, py = (a[:, 0] + a[:, 2]) * 0.5, (a[:, 1] + a[:, 3]) * 0.5
        pw, ph = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
        dw = d[:, 2].clamp(-max_ratio, max_ratio)
        dh = d[:, 3].clamp(-max_ratio, max_ratio)
        gx, gy = px + pw * d[:, 0], py + ph * d[:, 1]
        gw, gh = pw * dw.exp(), ph * dh.exp()
        x1 = (gx - gw * 0.5).clamp(0, img_w)
        y1 = (gy - gh * 0.5).clamp(0, img_h)
        x2 = (gx + gw * 0.5).clamp(0, img_w)
        y2 = (gy + gh * 0.5).clamp(0, img_h)
        return torch.stack([x1, y1, x2, y2], dim=-1)

    def run():
        lv_scores, lv_deltas, lv_anchors, lv_ids = [], [], [], []
        for lvl in range(len(offsets) - 1):
            s = scores[offsets[lvl]:offsets[lvl + 1]]
            ranked, order = s.sort(descending=True)
            keep = order[:nms_pre]
            lv_scores.append(ranked[:nms_pre])
            lv_deltas.append(deltas[offsets[lvl]:offsets[lvl + 1]][keep])
            lv_anchors.append(anchors[offsets[lvl]:offsets[lvl + 1]][keep])
            lv_ids.append(torch.full((len(keep),), lvl, dtype=torch.long, device="cuda"))
        sc = torch.cat(lv_scores)
        boxes = delta2bbox(torch.cat(lv_anchors), torch.cat(lv_deltas))
        ids = torch.cat(lv_ids)
        w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        valid = (w > min_size) & (h > min_size)
        boxes, sc, ids = boxes[valid], sc[valid], ids[valid]
        keep = batched_nms(boxes, sc, ids, iou)[:max_out]
        return torch.cat([boxes[keep], sc[keep, None]], dim=1)

    def outputs(dets):
        d = dets.cpu().numpy().astype(np.float32)
        proposals = np.zeros((max_out, 5), dtype=np.float32)
        proposals[:len(d)] = d
        return {"proposals": proposals, "count": np.array([len(d)], dtype=np.int32)}

    return [Peer("torch_mmdet", run, outputs,
                 note="torch %s + torchvision %s batched_nms, mmdetection's RPN steps" % (
                     torch.__version__, torchvision.__version__))]
