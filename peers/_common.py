"""_common.py - what the peer files beside it share: the PyTorch pipelines
that torch_eager.py times as they are and torch_compile.py compiles, the case
arithmetic (normalisation, letterbox map), the conversions of a library's
results to the op's outputs, and the yolo peers' count of differing detections.

The peer files import it by name (kbench's worker puts their folder first on
sys.path while a file imports). torch, numpy and the libraries are imported
inside functions, so that `kbench list` of a peer file runs without them.
"""
import time

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
MAX_WH = 7680.0  # ultralytics' class offset in its NMS


def peer(setup, summary, **keys):
    """A KBENCH entry of a library peer: setup returns (callable, note), the
    callable returns (raw result, finish); `outputs` applies finish, untimed."""
    return dict(setup=setup, outputs=outputs, peer=True, summary=summary, **keys)


def outputs(result):
    raw, finish = result
    return finish(raw)


def timed(run, finish):
    return lambda: (run(), finish)


def torch_lib():
    """torch with TF32 matmuls off: a peer's f32 is f32, as kbench's f32 variants."""
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    return torch


def version(*modules):
    """A `version` callable: 'torchvision 0.26.0, torch 2.11.0' of the modules named."""
    def text():
        import importlib
        return ", ".join("%s %s" % (m, importlib.import_module(m).__version__) for m in modules)
    return text


def library(name, why):
    """import name, or NotImplementedError (an UNSUPPORTED row) saying what is missing."""
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise NotImplementedError("%s is not installed (%s): %s" % (name, why, e))


def try_once(run):
    """One untimed call: a library's refusal of the case's dtype ('... not
    implemented for 'BFloat16'') becomes NotImplementedError."""
    try:
        run()
    except RuntimeError as e:
        if "not implemented for" not in str(e):
            raise
        raise NotImplementedError(str(e).strip().split("\n")[0][:300])


def compiled(run, finish, what):
    """torch.compile(run), compiled (or its graph found) by a first call: (the
    timed callable of the compiled run, a note with that call's time).
    One compile serves the cases of one code path: after a second shape
    dynamo compiles a graph with dynamic sizes that later shapes reuse, as a
    deployment that serves several shapes would. The recompile limit is
    raised so that no case runs eager for having met it."""
    torch = torch_lib()
    for knob in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                 "accumulated_cache_size_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, max(getattr(torch._dynamo.config, knob), 256))
    fn = torch.compile(run)
    breaks = _graph_breaks(torch)
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    took = time.perf_counter() - t0
    breaks = _graph_breaks(torch) - breaks if breaks is not None else None
    return timed(fn, finish), "torch.compile of %s: its first call (a compile, or a graph " \
        "compiled for an earlier case) %.1f s%s" % (what, took, "" if breaks is None else
                                                  "; %d graph break(s), those pieces run eager"
                                                  % breaks)


def _graph_breaks(torch):
    try:  # dynamo's own counters: internal, so absent is fine
        return sum(torch._dynamo.utils.counters["graph_break"].values())
    except Exception:
        return None


def mean_std(norm):
    if norm == "unit":
        return (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    return IMAGENET_MEAN, IMAGENET_STD


def letterbox_d2i(in_w, in_h, out_w, out_h):
    """kernels/preprocess.h kb_pp_letterbox_d2i in float32: network -> source, [2, 3]."""
    import numpy as np
    f = np.float32
    s = min(f(out_w) / f(in_w), f(out_h) / f(in_h))
    tx = (f(-s) * f(in_w) + f(out_w) + (s - f(1))) * f(0.5)
    ty = (f(-s) * f(in_h) + f(out_h) + (s - f(1))) * f(0.5)
    inv = f(1) / s
    return np.array([[inv, 0, -tx * inv], [0, inv, -ty * inv]], dtype=np.float32)


def nms_capacity(n, max_out):
    """kernels/nms.h kb_nms_capacity: the keep list's length."""
    return max_out if 0 < max_out < n else n


def keep_list(cap):
    """finish of an NMS peer: keep indices (any device, any int dtype) -> keep [cap] i32
    padded with -1, count [1]."""
    import numpy as np

    def finish(keep):
        k = keep[:cap].to("cpu").numpy().astype(np.int32)
        padded = np.full(cap, -1, dtype=np.int32)
        padded[:len(k)] = k
        return {"keep": padded, "count": np.array([len(k)], dtype=np.int32)}
    return finish


# ---- the PyTorch pipelines: (run, finish, how) ----

def preprocess_torch(image, n, in_h, in_w, out_h, out_w, interp, dtype, norm):
    """permute + float + F.interpolate (nearest: floor(dst*in/out); bilinear:
    half-pixel, align_corners=False) or, for letterbox, F.grid_sample at the
    inverse letterbox map over a 1-pixel border of 114, rounded to integers
    (the YOLOv5 GPU letterbox); then BGR->RGB, /255, -mean, /std, cast."""
    import numpy as np
    torch = torch_lib()
    F = torch.nn.functional
    out_dtype = {"f32": torch.float32, "f16": torch.float16}[dtype]
    mean, std = mean_std(norm)
    mean_t = torch.tensor(mean, device="cuda").view(1, 3, 1, 1)
    std_t = torch.tensor(std, device="cuda").view(1, 3, 1, 1)
    grid = None
    if interp == "letterbox":
        # Pixel centres of the padded image (1 px of 114 around), as
        # grid_sample's align_corners=True coordinates in [-1, 1].
        d2i = letterbox_d2i(in_w, in_h, out_w, out_h)
        xs = d2i[0, 0] * np.arange(out_w, dtype=np.float32) + d2i[0, 2] + 1
        ys = d2i[1, 1] * np.arange(out_h, dtype=np.float32) + d2i[1, 2] + 1
        gx = torch.from_numpy(xs / np.float32(in_w + 1) * 2 - 1).cuda()
        gy = torch.from_numpy(ys / np.float32(in_h + 1) * 2 - 1).cuda()
        grid = torch.stack(torch.meshgrid(gy, gx, indexing="ij")[::-1], dim=-1)
        grid = grid.unsqueeze(0).expand(n, out_h, out_w, 2)

    def run():
        x = image.permute(0, 3, 1, 2).float()
        if interp == "letterbox":
            x = F.pad(x, (1, 1, 1, 1), value=114.0)
            x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border",
                              align_corners=True)
            x = torch.floor(x + 0.5)
        else:
            x = F.interpolate(x, size=(out_h, out_w), mode=interp,
                              **({"align_corners": False} if interp == "bilinear" else {}))
        x = x.flip(1)
        return ((x / 255.0 - mean_t) / std_t).to(out_dtype)

    how = {"nearest": "F.interpolate(nearest) + flip + normalise",
           "bilinear": "F.interpolate(bilinear, align_corners=False) + flip + normalise",
           "letterbox": "pad 114 + F.grid_sample at the inverse letterbox map + round"
                        " + flip + normalise"}[interp]
    return run, lambda y: {"out": y}, how


def topk_torch(values, offsets, k, stable_sort):
    """torch.topk(sorted=True), or torch.sort(descending, stable) and the first
    k (the op's tie rule, at the price of a full sort): one batched call over a
    [segments, length] view when every segment has the same length (32x4096,
    1xL), else one call per segment (the RPN levels), as callers write it.
    Indices are within the segment, as the op's."""
    import numpy as np
    off = offsets.cpu().numpy().astype(np.int64)
    lengths = np.diff(off)
    segs = len(lengths)
    equal = segs > 0 and (lengths == lengths[0]).all() and lengths[0] > 0
    bounds = [(int(off[s]), int(off[s + 1])) for s in range(segs)]

    def by_topk():
        if equal:
            return [values.view(segs, -1).topk(min(k, int(lengths[0])), dim=1, sorted=True)]
        return [values[a:b].topk(min(k, b - a), sorted=True) for a, b in bounds]

    def by_sort():
        if equal:
            v, i = values.view(segs, -1).sort(dim=1, descending=True, stable=True)
            return [(v[:, :k], i[:, :k])]
        return [tuple(t[:k] for t in values[a:b].sort(descending=True, stable=True))
                for a, b in bounds]

    def finish(parts):
        vals = np.full((segs, k), -np.inf, dtype=np.float32)
        idx = np.full((segs, k), -1, dtype=np.int32)
        counts = np.zeros(segs, dtype=np.int32)
        rows = []
        for v, i in parts:  # a [S, m] batch or one segment's [m]
            v, i = v.cpu().numpy(), i.cpu().numpy()
            rows += list(zip(v, i)) if v.ndim == 2 else [(v, i)]
        for s, (v, i) in enumerate(rows):
            vals[s, :len(v)] = v
            idx[s, :len(i)] = i
            counts[s] = len(v)
        return {"topk_values": vals, "topk_indices": idx, "counts": counts}

    how = "one batched call" if equal else "one call per segment (%d)" % segs
    return (by_sort if stable_sort else by_topk), finish, how


def rpn_torch(scores, deltas, anchors, level_offsets, img_h, img_w, nms_pre, max_per_img, iou,
              min_bbox_size):
    """mmdetection's RPNHead._get_bboxes_single as its users run it, one image:
    per level scores.sort(descending) and the first nms_pre; cat; delta2bbox
    (means 0, stds 1, dw/dh clamped to |log(16/1000)|, clamped to the image);
    drop boxes with w or h <= min_bbox_size; batched_nms by level id; the
    first max_per_img."""
    import math
    import numpy as np
    from torchvision.ops import batched_nms
    torch = torch_lib()
    img_h, img_w, min_size = float(img_h), float(img_w), float(min_bbox_size)
    offsets = [int(o) for o in level_offsets.tolist()]
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
        keep = batched_nms(boxes, sc, ids, iou)[:max_per_img]
        return torch.cat([boxes[keep], sc[keep, None]], dim=1)

    def finish(dets):
        d = dets.cpu().numpy().astype(np.float32)
        proposals = np.zeros((max_per_img, 5), dtype=np.float32)
        proposals[:len(d)] = d
        return {"proposals": proposals, "count": np.array([len(d)], dtype=np.int32)}

    return run, finish, "mmdetection's RPN steps, torchvision batched_nms"


def yolo_torch(pred, d2i, b, conf, iou, max_det, max_out, src_w, src_h):
    """YOLOv5 post-processing as ultralytics' non_max_suppression does it, one
    image at a time: obj > conf; cls *= obj; best class; score > conf;
    argsort(descending)[:max_det]; boxes xywh -> xyxy in network pixels;
    torchvision.ops.nms on them offset by class * 7680 (ultralytics' max_wh);
    the first max_out; then mapped to the source image by the letterbox's
    inverse affine (d2i) and clipped, as ultralytics' scale_boxes does AFTER
    the NMS. The op clips before its NMS (kernels/yolo_decode.h), so a box cut
    by the image border can suppress differently: other semantics (unchecked,
    the note counts the detections that differ). The thresholds are strict
    (>) where the op's are >=: they differ only on a score exactly at conf."""
    import numpy as np
    from torchvision.ops import nms
    torch = torch_lib()
    src_w, src_h = float(src_w), float(src_h)

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

    def finish(per_image):
        dets = np.zeros((b, max_out, 6), dtype=np.float32)
        count = np.zeros(b, dtype=np.int32)
        for i, d in enumerate(per_image):
            d = d.cpu().numpy()
            dets[i, :len(d)] = d
            count[i] = len(d)
        return {"count": count, "dets": dets}

    return run, finish, ("ultralytics non_max_suppression (NMS on network-pixel boxes, mapped"
                         " and clipped after), torchvision nms")


def yolo_differs(out, ref):
    return "other semantics: %s of the op's reference" % differing_detections(out, ref)


def differing_detections(out, ref, px=1e-2):
    """'D detections differ (A only here, B only in the reference) of N': a
    detection is the same when class and score are equal and every
    coordinate is within px of the other's."""
    only_here = only_ref = total = 0
    for i in range(len(ref["count"])):
        mine = [tuple(d) for d in out["dets"][i][:int(out["count"][i])]]
        theirs = [tuple(d) for d in ref["dets"][i][:int(ref["count"][i])]]
        total += len(theirs)

        def same(a, b):
            return a[4] == b[4] and a[5] == b[5] and all(abs(a[k] - b[k]) <= px for k in range(4))
        unmatched = list(theirs)
        for d in mine:
            hit = next((k for k, r in enumerate(unmatched) if same(d, r)), None)
            if hit is None:
                only_here += 1
            else:
                unmatched.pop(hit)
        only_ref += len(unmatched)
    return "%d detections differ (%d only here, %d only in the reference) of %d" % (
        only_here + only_ref, only_here, only_ref, total)
