"""op_topk.py — the k largest per segment with PyTorch.

  torch_topk   torch.topk(sorted=True): one batched call over a [segments,
               length] view when every segment has the same length (32x4096,
               1xL), else one call per segment (the RPN levels), as callers
               write it; torch does not promise lower-index-first on ties
  torch_sort   torch.sort(descending=True, stable=True) and the first k:
               the tie rule of the op, at the price of a full sort
Indices are within the segment, as the op's.
"""
from peer import Peer

NAMES = ["torch_topk", "torch_sort"]


def peers(ctx):
    import numpy as np
    import torch
    p = ctx.params
    k = int(p["k"])
    values = torch.from_numpy(ctx.load("values")).cuda()
    offsets = ctx.load("offsets").astype(np.int64)
    lengths = np.diff(offsets)
    segs = len(lengths)
    equal = segs > 0 and (lengths == lengths[0]).all() and lengths[0] > 0
    bounds = [(int(offsets[s]), int(offsets[s + 1])) for s in range(segs)]

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

    def outputs(parts):
        vals = np.full((segs, k), -np.inf, dtype=np.float32)
        idx = np.full((segs, k), -1, dtype=np.int32)
        rows = []
        for v, i in parts:  # a [S, m] batch or one segment's [m]
            v, i = v.cpu().numpy(), i.cpu().numpy()
            rows += list(zip(v, i)) if v.ndim == 2 else [(v, i)]
        counts = np.zeros(segs, dtype=np.int32)
        for s, (v, i) in enumerate(rows):
            vals[s, :len(v)] = v
            idx[s, :len(i)] = i
            counts[s] = len(v)
        return {"topk_values": vals, "topk_indices": idx, "counts": counts}

    how = "one batched call" if equal else "one call per segment (%d)" % segs
    return [Peer("torch_topk", by_topk, outputs,
                 note="torch %s topk, %s" % (torch.__version__, how)),
            Peer("torch_sort", by_sort, outputs,
                 note="torch %s sort(stable) then [:k], %s" % (torch.__version__, how))]
