"""op_yolo_decode.py — YOLOv5 post-processing as its users write it:
ultralytics' non_max_suppression in PyTorch, one image at a time.

  torch_ultralytics  obj > conf; cls *= obj; best class; score > conf;
                     argsort(descending)[:max_det]; boxes xywh -> xyxy
                     mapped to the source image by the letterbox's inverse
                     affine (d2i) and clipped, BEFORE the NMS as the op's
                     semantics say (ultralytics maps after: other work);
                     torchvision.ops.nms on boxes offset by class * 7680
                     (ultralytics' max_wh); the first max_out
The thresholds are strict (>) where the op's are >=: they differ only on a
score exactly at conf.
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
        sx = (m[0] * xs + m[1] * ys + m[2]).clamp(0, src_w)
        sy = (m[3] * xs + m[4] * ys + m[5]).clamp(0, src_h)
        boxes = torch.stack([sx[:, 0], sy[:, 0], sx[:, 1], sy[:, 1]], 1)
        c = j.float()
        keep = nms(boxes + c[:, None] * MAX_WH, score, iou)[:max_out]
        return torch.cat([boxes[keep], score[keep, None], c[keep, None]], 1)

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

    return [Peer("torch_ultralytics", run, outputs,
                 note="torch %s + torchvision %s nms, ultralytics non_max_suppression (boxes "
                      "mapped to the source before NMS)" % (torch.__version__,
                                                            torchvision.__version__))]
