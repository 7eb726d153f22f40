"""torch_compile.py - torch.compile (Inductor) of the PyTorch pipelines of
torch_eager.py, on the GPU: the same code (_common.py), compiled per case.

  torch_compile              preprocess: resize / letterbox + flip + normalise
  torch_compile_topk         topk: torch.topk, batched or per segment
  torch_compile_mmdet        rpn_proposals: mmdetection's RPN steps
  torch_compile_ultralytics  yolo_decode: ultralytics' decode + NMS (other
                             semantics, UNCHECKED, as torch_ultralytics)
setup compiles by a first call (a second shape compiles a graph with
dynamic sizes that later cases of the same code path reuse); that call's
time and the graph breaks (data-dependent shapes: boolean masks, NMS; those
pieces run eager) are in the row's note. The timed calls are the compiled ones.

  kbench run preprocess --peers   (every file under peers/; docs/python.md)
"""
from _common import (compiled, peer, preprocess_torch, rpn_torch, topk_torch, version,
                     yolo_differs, yolo_torch)

TORCH = version("torch")


def preprocess(image, n, in_h, in_w, out_h, out_w, interp, dtype, norm, **_):
    run, finish, how = preprocess_torch(image, n, in_h, in_w, out_h, out_w, interp, dtype, norm)
    return compiled(run, finish, how)


def topk(values, offsets, k, **_):
    run, finish, how = topk_torch(values, offsets, k, stable_sort=False)
    return compiled(run, finish, "topk, " + how)


def rpn(scores, deltas, anchors, level_offsets, img_h, img_w, nms_pre, max_per_img, iou,
        min_bbox_size, **_):
    run, finish, how = rpn_torch(scores, deltas, anchors, level_offsets, img_h, img_w, nms_pre,
                                 max_per_img, iou, min_bbox_size)
    return compiled(run, finish, how)


def yolo(pred, d2i, b, conf, iou, max_det, max_out, src_w, src_h, **_):
    run, finish, how = yolo_torch(pred, d2i, b, conf, iou, max_det, max_out, src_w, src_h)
    return compiled(run, finish, how)


KBENCH = {
    "preprocess/torch_compile": peer(preprocess, "torch.compile of the torch peer",
                                     version=TORCH),
    "topk/torch_compile_topk": peer(topk, "torch.compile of torch_topk", version=TORCH),
    "rpn_proposals/torch_compile_mmdet": peer(rpn, "torch.compile of torch_mmdet",
                                              version=version("torch", "torchvision")),
    "yolo_decode/torch_compile_ultralytics": peer(
        yolo, "torch.compile of torch_ultralytics (other semantics)", check=False,
        differs=yolo_differs, version=version("torch", "torchvision")),
}
