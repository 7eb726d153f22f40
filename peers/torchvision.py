"""torchvision.py - torchvision's ops as peers of kbench's, on the GPU.

  torchvision              deform_conv2d: torchvision.ops.deform_conv2d, the op's
                           own semantics, in the case's dtype (a dtype its kernel
                           lacks: UNSUPPORTED with torchvision's words)
  torchvision_nms          nms: torchvision.ops.nms; class-agnostic cases only
                           (on classes > 1 it is other work: UNSUPPORTED)
  torchvision_batched_nms  nms: torchvision.ops.batched_nms with the class ids
                           (int64, converted in setup), every case
Both NMS peers return the keep indices by score descending; max_out > 0 keeps
the first max_out, as a caller slices it. torchvision copies its suppression
mask to the host inside the call: its time includes that synchronisation.

  kbench run nms --peers        (every file under peers/; docs/python.md)
"""
from _common import keep_list, nms_capacity, peer, timed, torch_lib, try_once, version

VERSION = version("torchvision", "torch")


def deform_conv2d(input, offset, weight, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, dtype,
                  mask=None, bias=None, **_):
    from torchvision.ops import deform_conv2d
    torch_lib()
    mask = mask if mask is not None and mask.numel() else None  # absent: 0 elements
    bias = bias if bias is not None and bias.numel() else None

    def run():
        return deform_conv2d(input, offset, weight, bias, (stride_h, stride_w), (pad_h, pad_w),
                             (dil_h, dil_w), mask)
    try_once(run)
    return timed(run, lambda y: {"output": y}), "deform_conv2d (%s), %s" % (
        "DCNv2" if mask is not None else "DCNv1", dtype)


def nms(boxes, scores, iou, max_out, classes_axis, **_):
    from torchvision.ops import nms
    if classes_axis != 1:
        raise NotImplementedError("classes=%d: ops.nms is class-agnostic, so other work here "
                                  "(torchvision_batched_nms runs this case)" % classes_axis)
    sl = slice(0, max_out) if max_out > 0 else slice(None)
    return timed(lambda: nms(boxes, scores, iou)[sl],
                 keep_list(nms_capacity(boxes.shape[0], max_out))), "ops.nms"


def batched_nms(boxes, scores, classes, iou, max_out, **_):
    from torchvision.ops import batched_nms
    ids = classes.long()
    sl = slice(0, max_out) if max_out > 0 else slice(None)
    return timed(lambda: batched_nms(boxes, scores, ids, iou)[sl],
                 keep_list(nms_capacity(boxes.shape[0], max_out))), "ops.batched_nms"


KBENCH = {
    "deform_conv2d/torchvision": peer(deform_conv2d, "torchvision.ops.deform_conv2d",
                                      version=VERSION),
    "nms/torchvision_nms": peer(nms, "torchvision.ops.nms (class-agnostic cases)",
                                version=VERSION),
    "nms/torchvision_batched_nms": peer(batched_nms, "torchvision.ops.batched_nms",
                                        version=VERSION),
}
