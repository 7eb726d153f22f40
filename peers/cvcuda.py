"""cvcuda.py - NVIDIA CV-CUDA on the GPU, on torch's current stream.

  cvcuda      preprocess: cvtcolor(BGR2RGB), convertto(f32, 1/255), resize
              (nearest / linear, in float so that the blend is not rounded) or,
              for letterbox, warp_affine(u8, the inverse map, border 114) then
              convertto; normalize(mean, std); reformat(NCHW); f16 by a torch
              cast at the end
  cvcuda_nms  nms: cvcuda.nms (its kernel, OpNonMaximumSuppression.cu): a box
              is dropped when any other box, kept or not, overlaps it with
              IoU > iou and has a higher score, or an equal score and a larger
              area; so the op's other semantics (fast NMS), judged by the
              fast-NMS reference. Its IoU (int16 x, y, w, h; the intersection
              in integers, float areas, one division) is the op's rule exactly
              on integral boxes. The mask -> the kept indices in rank order
              (torch sort, stable) is timed with it. The cases it can express:
              integral int16 boxes and no equal scores (the default sweep's
              dist=pixels cases), one class, IoU in (0, 1]; others UNSUPPORTED.
              One image a case (batch 1): the op has no image axis, where
              CV-CUDA's own benchmark batches 32 images of 4096 boxes
CV-CUDA is imported in setup: missing, an UNSUPPORTED row that says so.

  kbench run preprocess --peers   (every file under peers/; docs/python.md)
"""
from _common import (keep_list, letterbox_d2i, library, mean_std, nms_capacity, peer, timed,
                     torch_lib, version)

INSTALL = "pip install cvcuda-cu13"
VERSION = version("cvcuda", "torch")


def preprocess(image, n, in_h, in_w, out_h, out_w, interp, dtype, norm, **_):
    import numpy as np
    cvcuda = library("cvcuda", INSTALL)
    torch = torch_lib()
    stream = cvcuda.as_stream(torch.cuda.current_stream())
    mean, std = mean_std(norm)
    base = cvcuda.as_tensor(torch.tensor(mean, device="cuda").reshape(1, 1, 1, 3), "NHWC")
    scale = cvcuda.as_tensor(torch.tensor(std, device="cuda").reshape(1, 1, 1, 3), "NHWC")
    src = cvcuda.as_tensor(image.contiguous(), "NHWC")
    if interp == "letterbox":
        d2i = letterbox_d2i(in_w, in_h, out_w, out_h)
        flags = cvcuda.Interp.LINEAR | cvcuda.Interp.WARP_INVERSE_MAP
        border = np.array([114, 114, 114], dtype=np.float32)
        warped = cvcuda.as_tensor(torch.empty((n, out_h, out_w, 3), dtype=torch.uint8,
                                              device="cuda"), "NHWC")
    else:
        resize = cvcuda.Interp.NEAREST if interp == "nearest" else cvcuda.Interp.LINEAR

    def run():
        x = cvcuda.cvtcolor(src, cvcuda.ColorConversion.BGR2RGB, stream=stream)
        if interp == "letterbox":
            cvcuda.warp_affine_into(warped, x, d2i, flags, border_mode=cvcuda.Border.CONSTANT,
                                    border_value=border, stream=stream)
            x = cvcuda.convertto(warped, np.float32, scale=1 / 255, stream=stream)
        else:
            x = cvcuda.convertto(x, np.float32, scale=1 / 255, stream=stream)
            x = cvcuda.resize(x, (n, out_h, out_w, 3), resize, stream=stream)
        x = cvcuda.normalize(x, base, scale, cvcuda.NormalizeFlags.SCALE_IS_STDDEV, stream=stream)
        y = torch.as_tensor(cvcuda.reformat(x, "NCHW", stream=stream).cuda(), device="cuda")
        return y.half() if dtype == "f16" else y

    how = ("warp_affine(u8, border 114) + convertto" if interp == "letterbox" else
           "convertto + resize(%s, f32)" % interp)
    return timed(run, lambda y: {"out": y}), "cvtcolor + %s + normalize + reformat(NCHW)%s" % (
        how, " + torch half()" if dtype == "f16" else "")


def nms(boxes, scores, iou, max_out, classes_axis, **_):
    cvcuda = library("cvcuda", INSTALL)
    torch = torch_lib()
    n = boxes.shape[0]
    if classes_axis != 1:
        raise NotImplementedError("classes=%d: cvcuda.nms is class-agnostic" % classes_axis)
    if not 0 < iou <= 1:
        raise NotImplementedError("iou=%g: cvcuda.nms takes an IoU threshold in (0, 1]" % iou)
    xywh = torch.cat([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], 1)
    if n and (not torch.equal(xywh, xywh.round()) or xywh.abs().max() > 32767):
        raise NotImplementedError("cvcuda.nms takes int16 boxes (x, y, w, h); these coordinates "
                                  "are not integers in int16 (rounding them is other boxes; the "
                                  "dist=pixels cases are)")
    if scores.unique().numel() < n:
        raise NotImplementedError("equal scores: cvcuda.nms keeps the larger box of a tie (both"
                                  " of equal areas), the op the lower index (dist=pixels has no "
                                  "equal scores)")
    stream = cvcuda.as_stream(torch.cuda.current_stream())
    src = cvcuda.as_tensor(xywh.to(torch.int16).reshape(1, n, 4).contiguous(), "NWC")
    sc = cvcuda.as_tensor(scores.reshape(1, n).contiguous(), "NW")

    def run():
        kept = cvcuda.nms(src, sc, float("-inf"), iou, stream=stream)
        mask = torch.as_tensor(kept.cuda(), device="cuda").reshape(n).bool()
        order = scores.sort(descending=True, stable=True)[1]
        return order[mask[order]]

    return timed(run, keep_list(nms_capacity(n, max_out))), (
        "cvcuda.nms (pairwise, one image of %d boxes) + the kept boxes in rank order (torch sort,"
        " stable)" % n)


KBENCH = {
    "preprocess/cvcuda": peer(preprocess, "CV-CUDA cvtcolor + resize / warp_affine + normalize"
                              " + reformat", version=VERSION),
    "nms/cvcuda_nms": peer(nms, "CV-CUDA nms (pairwise: fast NMS; int16 boxes only)",
                           semantics="other", version=VERSION),
}
