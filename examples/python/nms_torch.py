"""nms_torch.py - greedy NMS with PyTorch on the GPU, in kbench's table:

    kbench run nms --py examples/python/nms_torch.py --sweep smoke

setup() runs once per case, untimed (class ids to int64, the keep list's
length); kbench times the callable it returns with CUDA events; outputs()
pads that call's keep list to the op's layout, untimed.
The contract (names, keys, timing): docs/python.md.
"""


def setup(boxes, scores, classes, iou, max_out, **_):
    from torchvision.ops import batched_nms
    n = boxes.shape[0]
    cap = max_out if 0 < max_out < n else n  # kernels/nms.h: the keep list's length
    ids = classes.long()
    return lambda: (batched_nms(boxes, scores, ids, iou)[:cap], cap)


def outputs(result):
    import torch
    keep, cap = result
    padded = torch.full((cap,), -1, dtype=torch.int32)
    padded[:len(keep)] = keep.cpu()
    return {"keep": padded, "count": torch.tensor([len(keep)], dtype=torch.int32)}


KBENCH = {
    "nms/torch_greedy": {"setup": setup, "outputs": outputs,
                         "summary": "torchvision.ops.batched_nms (greedy, class-aware)"},
}
