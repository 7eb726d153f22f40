"""torch_eager.py - PyTorch as its users write these ops, eager, on the GPU.

  cudnn_conv2d       deform_conv2d: F.conv2d with the same weight, bias,
                     stride, padding, dilation and groups, no offsets: the
                     dense-convolution floor, other work (UNCHECKED); f32 with
                     TF32 off, or the case's f16 / bf16
  cudnn_conv2d_tf32  the same in f32 with TF32 tensor cores allowed
  torch_topk         topk: torch.topk(sorted=True), batched over equal
                     segments, else a call per segment; torch does not promise
                     lower-index-first on ties
  torch_sort         topk: torch.sort(descending, stable) and the first k: the
                     op's tie rule, at the price of a full sort
  torch_mmdet        rpn_proposals: mmdetection's RPNHead._get_bboxes_single
  torch_ultralytics  yolo_decode: ultralytics' non_max_suppression, one image
                     at a time; NMS before the clip, other semantics (UNCHECKED,
                     its note counts the detections that differ from the op's)
  torch              preprocess: permute, F.interpolate or F.grid_sample
                     (letterbox), flip, normalise
  copy_floor         preprocess: a device-to-device copy (cudaMemcpyAsync, as
                     `kbench info`'s copy ceiling) of the case's bytes, half
                     each way: the op's input read and output written, with
                     no work between (UNCHECKED: not the op; the floor of a
                     batch's kernel, while at one image the memcpy's own
                     fixed cost is above the kernels')
The pipelines themselves: _common.py (torch_compile.py compiles the same).

  kbench run topk --peers       (every file under peers/; docs/python.md)
"""
from _common import (peer, preprocess_torch, rpn_torch, timed, topk_torch, torch_lib, try_once,
                     version, yolo_differs, yolo_torch)

TORCH = version("torch")
WITH_TORCHVISION = version("torch", "torchvision")


def cudnn_version():
    torch = torch_lib()
    return "torch %s, cuDNN %s" % (torch.__version__, torch.backends.cudnn.version())


def conv2d(tf32):
    def setup(input, weight, h, w, kh, kw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups,
              dtype, bias=None, **_):
        torch = torch_lib()
        F = torch.nn.functional
        if tf32 and dtype != "f32":
            raise NotImplementedError("dtype=%s: TF32 is a mode of f32 convolutions "
                                      "(cudnn_conv2d runs this case)" % dtype)
        # kbench takes torchvision's output size, which keeps one row where the
        # kernel passes the padded input by less than the stride; F.conv2d
        # refuses a kernel larger than the padded input.
        past = []
        for a, n, pad, k, d in (("h", h, pad_h, kh, dil_h), ("w", w, pad_w, kw, dil_w)):
            padded, span = n + 2 * pad, d * (k - 1) + 1
            if padded < span:
                past.append("%s + 2*pad_%s = %d < dil_%s*(k%s-1) + 1 = %d" % (a, a, padded, a, a,
                                                                              span))
        if past:
            raise NotImplementedError("F.conv2d: kernel larger than the padded input: " +
                                      ", ".join(past))
        bias = bias if bias is not None and bias.numel() else None

        def run():
            torch.backends.cudnn.allow_tf32 = tf32
            return F.conv2d(input, weight, bias, (stride_h, stride_w), (pad_h, pad_w),
                            (dil_h, dil_w), groups)
        try_once(run)
        return timed(run, lambda y: {"output": y}), (
            "dense conv2d, same shapes, no offsets: a floor for reference, not the same op "
            "(unchecked); " + ("TF32 tensor cores" if tf32 else
                               "fp32, TF32 off" if dtype == "f32" else dtype))
    return setup


def topk(stable_sort):
    def setup(values, offsets, k, **_):
        run, finish, how = topk_torch(values, offsets, k, stable_sort)
        return timed(run, finish), ("sort(stable) then [:k], " if stable_sort else "topk, ") + how
    return setup


def rpn(scores, deltas, anchors, level_offsets, img_h, img_w, nms_pre, max_per_img, iou,
        min_bbox_size, **_):
    run, finish, how = rpn_torch(scores, deltas, anchors, level_offsets, img_h, img_w, nms_pre,
                                 max_per_img, iou, min_bbox_size)
    return timed(run, finish), how


def yolo(pred, d2i, b, conf, iou, max_det, max_out, src_w, src_h, **_):
    run, finish, how = yolo_torch(pred, d2i, b, conf, iou, max_det, max_out, src_w, src_h)
    return timed(run, finish), how


def preprocess(image, n, in_h, in_w, out_h, out_w, interp, dtype, norm, **_):
    run, finish, how = preprocess_torch(image, n, in_h, in_w, out_h, out_w, interp, dtype, norm)
    return timed(run, finish), "on the GPU: " + how


def copy_floor(image, out_h, out_w, dtype, **_):
    torch = torch_lib()
    out = torch.zeros((image.shape[0], 3, out_h, out_w), device="cuda",
                      dtype={"f32": torch.float32, "f16": torch.float16}[dtype])
    read, written = image.numel() * image.element_size(), out.numel() * out.element_size()
    each = -(-(read + written) // 2 // 128) * 128
    src = torch.ones(each, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return timed(lambda: dst.copy_(src), lambda _: {"out": out}), (
        "a device-to-device copy of %.2f MB each way: the op's %.2f MB read + %.2f MB written "
        "(a floor for reference, not the op: unchecked)" % (each / 1e6, read / 1e6,
                                                            written / 1e6))


KBENCH = {
    "deform_conv2d/cudnn_conv2d": peer(conv2d(False), "cuDNN dense conv2d, no offsets (a floor)",
                                       check=False, version=cudnn_version),
    "deform_conv2d/cudnn_conv2d_tf32": peer(conv2d(True), "cuDNN dense conv2d, TF32 (a floor)",
                                            check=False, precision="tf32",
                                            version=cudnn_version),
    "topk/torch_topk": peer(topk(False), "torch.topk(sorted=True)", version=TORCH),
    "topk/torch_sort": peer(topk(True), "torch.sort(stable) then [:k]", version=TORCH),
    "rpn_proposals/torch_mmdet": peer(rpn, "mmdetection's RPN steps in PyTorch",
                                      version=WITH_TORCHVISION),
    "yolo_decode/torch_ultralytics": peer(yolo, "ultralytics' non_max_suppression (other "
                                          "semantics)", check=False, differs=yolo_differs,
                                          version=WITH_TORCHVISION),
    "preprocess/torch": peer(preprocess, "F.interpolate / F.grid_sample + flip + normalise",
                             version=TORCH),
    "preprocess/copy_floor": peer(copy_floor, "a device-to-device copy of the op's bytes "
                                  "(a floor)", check=False, version=TORCH),
}
