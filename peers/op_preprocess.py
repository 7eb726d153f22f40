"""op_preprocess.py — the preprocessing pipelines people write instead of a
kernel: u8 BGR HWC image(s) -> normalised RGB CHW float (DESIGN.md).

  torch          on the GPU: permute + float + F.interpolate (nearest:
                 floor(dst*in/out); bilinear: half-pixel, align_corners=False)
                 or, for letterbox, F.grid_sample at the inverse letterbox
                 map over a 1-pixel border of 114, rounded to integers (the
                 YOLOv5 GPU letterbox); then BGR->RGB,
                 /255, -mean, /std, cast
  opencv_cpu     on the HOST (CPU): per image cv2.resize (on float32, so the
                 blend is not rounded to u8: the same work) or cv2.warpAffine
                 (u8, border 114, as YOLOv5's letterbox), cvtColor, normalise,
                 transpose; wall clock, the input already in host memory
"""
from peer import Peer

NAMES = ["torch", "opencv_cpu"]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def _mean_std(p):
    if p["norm"] == "unit":
        return (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    return IMAGENET_MEAN, IMAGENET_STD


def _letterbox_d2i(in_w, in_h, out_w, out_h):
    """kernels/preprocess.h kb_pp_letterbox_d2i, in float32."""
    import numpy as np
    f = np.float32
    s = min(f(out_w) / f(in_w), f(out_h) / f(in_h))
    tx = (f(-s) * f(in_w) + f(out_w) + (s - f(1))) * f(0.5)
    ty = (f(-s) * f(in_h) + f(out_h) + (s - f(1))) * f(0.5)
    inv = f(1) / s
    return np.array([[inv, 0, -tx * inv], [0, inv, -ty * inv]], dtype=np.float32)


def peers(ctx):
    import numpy as np
    import torch
    import torch.nn.functional as F
    p = ctx.params
    n, in_h, in_w = int(p["n"]), int(p["in_h"]), int(p["in_w"])
    out_h, out_w, interp = int(p["out_h"]), int(p["out_w"]), p["interp"]
    out_dtype = {"f32": torch.float32, "f16": torch.float16}[p["dtype"]]
    mean, std = _mean_std(p)
    image = ctx.load("image")  # u8 [n, h, w, 3] BGR
    dev = torch.from_numpy(image).cuda()
    mean_t = torch.tensor(mean, device="cuda").view(1, 3, 1, 1)
    std_t = torch.tensor(std, device="cuda").view(1, 3, 1, 1)
    d2i = _letterbox_d2i(in_w, in_h, out_w, out_h)

    grid = None
    if interp == "letterbox":
        # Pixel centres of the padded image (1 px of 114 around), as
        # grid_sample's align_corners=True coordinates in [-1, 1].
        xs = d2i[0, 0] * np.arange(out_w, dtype=np.float32) + d2i[0, 2] + 1
        ys = d2i[1, 1] * np.arange(out_h, dtype=np.float32) + d2i[1, 2] + 1
        gx = torch.from_numpy(xs / np.float32(in_w + 1) * 2 - 1).cuda()
        gy = torch.from_numpy(ys / np.float32(in_h + 1) * 2 - 1).cuda()
        grid = torch.stack(torch.meshgrid(gy, gx, indexing="ij")[::-1], dim=-1)
        grid = grid.unsqueeze(0).expand(n, out_h, out_w, 2)

    def torch_run():
        x = dev.permute(0, 3, 1, 2).float()
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

    def torch_outputs(y):
        return {"out": y.cpu().numpy()}

    out = [Peer("torch", torch_run, torch_outputs,
                note="PyTorch %s on the GPU: %s" % (torch.__version__, {
                    "nearest": "F.interpolate(nearest) + flip + normalise",
                    "bilinear": "F.interpolate(bilinear, align_corners=False) + flip + normalise",
                    "letterbox": "pad 114 + F.grid_sample at the inverse letterbox map + round"
                                 " + flip + normalise"}[interp]))]

    try:
        import cv2
    except ImportError:
        return out  # run.py's header line says "cv2 missing"
    np_dtype = np.float16 if p["dtype"] == "f16" else np.float32
    mean_a = np.array(mean, dtype=np.float32)
    inv_std = np.float32(1) / np.array(std, dtype=np.float32)

    def cv_one(img):
        if interp == "letterbox":
            y = cv2.warpAffine(img, d2i, (out_w, out_h),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
            y = y.astype(np.float32)
        else:
            flag = cv2.INTER_NEAREST if interp == "nearest" else cv2.INTER_LINEAR
            y = cv2.resize(img.astype(np.float32), (out_w, out_h), interpolation=flag)
        y = cv2.cvtColor(y, cv2.COLOR_BGR2RGB)
        y = (y / np.float32(255) - mean_a) * inv_std
        return y.transpose(2, 0, 1).astype(np_dtype)

    def cv_run():
        return np.stack([cv_one(image[b]) for b in range(n)])

    out.append(Peer("opencv_cpu", cv_run, lambda y: {"out": np.ascontiguousarray(y)}, cpu=True,
                    note="CPU, not the GPU: OpenCV %s with %d threads, per image %s + cvtColor"
                         " + normalise + transpose; wall clock" % (
                             cv2.__version__, cv2.getNumThreads(),
                             "warpAffine(u8, border 114)" if interp == "letterbox"
                             else "resize(float32)")))
    return out
