"""op_deform_conv2d.py — torchvision.ops.deform_conv2d, the op's own semantics
(DESIGN.md), and cuDNN's dense convolution of the same shapes as reference
points.

  torchvision          torchvision.ops.deform_conv2d in the case's dtype
                       (f32 or f16; kbench dumps bf16 as f32, which this
                       peer does not run)
  cudnn_conv2d         F.conv2d with the same weight, bias, stride, padding,
                       dilation and groups, no offsets: the dense-convolution
                       floor, OTHER WORK (rows UNCHECKED); f32 with TF32 off,
                       or f16
  cudnn_conv2d_tf32    the same in f32 with TF32 tensor cores allowed
"""
from peer import Peer, Unsupported

NAMES = ["torchvision", "cudnn_conv2d", "cudnn_conv2d_tf32"]


def peers(ctx):
    import torch
    import torch.nn.functional as F
    import torchvision
    from torchvision.ops import deform_conv2d
    p = ctx.params
    dtype = {"f32": torch.float32, "f16": torch.float16}.get(p["dtype"])
    if dtype is None:
        raise Unsupported("dtype=%s: this peer runs f32 and f16 only" % p["dtype"])

    def dev(name, optional=False):  # an absent mask or bias is dumped with 0 elements
        a = ctx.load(name)
        return None if optional and not a.size else torch.from_numpy(a).cuda()

    x, offset, weight = dev("input"), dev("offset"), dev("weight")
    mask, bias = dev("mask", optional=True), dev("bias", optional=True)
    stride = (int(p["stride_h"]), int(p["stride_w"]))
    padding = (int(p["pad_h"]), int(p["pad_w"]))
    dilation = (int(p["dil_h"]), int(p["dil_w"]))
    groups = int(p["groups"])
    out = []

    def tv_run():
        return deform_conv2d(x, offset, weight, bias, stride, padding, dilation, mask)

    def outputs(y):
        return {"output": y.contiguous().cpu().numpy()}

    out.append(Peer("torchvision", tv_run, outputs,
                    note="torchvision %s deform_conv2d (%s), %s" % (
                        torchvision.__version__, "DCNv2" if mask is not None else "DCNv1",
                        p["dtype"])))

    # kbench takes torchvision's output size, which keeps one row where the
    # kernel passes the padded input by less than the stride; F.conv2d refuses
    # a kernel larger than the padded input.
    past = []
    for a, pad, k, d in (("h", "pad_h", "kh", "dil_h"), ("w", "pad_w", "kw", "dil_w")):
        padded, span = int(p[a]) + 2 * int(p[pad]), int(p[d]) * (int(p[k]) - 1) + 1
        if padded < span:
            past.append("%s + 2*%s = %d < %s*(%s-1) + 1 = %d" % (a, pad, padded, d, k, span))

    def conv(tf32):
        def run():
            if past:
                raise Unsupported("F.conv2d: kernel larger than the padded input: " +
                                  ", ".join(past))
            torch.backends.cudnn.allow_tf32 = tf32
            return F.conv2d(x, weight, bias, stride, padding, dilation, groups)
        return run

    dense_note = ("cuDNN %s dense conv2d, same shapes, no offsets: a floor for reference, "
                  "not the same op (unchecked)" % torch.backends.cudnn.version())
    if p["dtype"] == "f32":
        out.append(Peer("cudnn_conv2d", conv(False), outputs, checked=False,
                        note=dense_note + "; fp32, TF32 off"))
        out.append(Peer("cudnn_conv2d_tf32", conv(True), outputs, checked=False,
                        note=dense_note + "; TF32 tensor cores"))
    else:
        out.append(Peer("cudnn_conv2d", conv(False), outputs, checked=False,
                        note=dense_note + "; " + p["dtype"]))
    return out
