"""topk_numpy.py - a topk variant in NumPy, on the CPU, in kbench's table:

    kbench run topk --py examples/python/topk_numpy.py --sweep smoke

Per segment the k largest values with their indices, descending; equal values
(-0 and +0 too) by lower index first; slots past counts hold -inf / -1.
The contract (names, keys, timing): docs/python.md.
"""
import numpy as np


def topk(values, offsets, k, **_):
    segments = len(offsets) - 1
    top_v = np.full((segments, k), -np.inf, dtype=np.float32)
    top_i = np.full((segments, k), -1, dtype=np.int32)
    counts = np.zeros(segments, dtype=np.int32)
    for s in range(segments):
        seg = values[offsets[s]:offsets[s + 1]]
        m = min(k, len(seg))
        if m == 0:
            continue
        kth = np.partition(seg, len(seg) - m)[len(seg) - m]  # the m-th largest value
        above = np.flatnonzero(seg > kth)
        idx = np.concatenate([above, np.flatnonzero(seg == kth)[:m - len(above)]])
        idx = idx[np.lexsort((idx, -seg[idx]))]  # by value descending, then index
        top_v[s, :m], top_i[s, :m], counts[s] = seg[idx], idx, m
    return {"topk_values": top_v, "topk_indices": top_i, "counts": counts}


KBENCH = {
    "topk/numpy_select": {"fn": topk, "where": "host",
                          "summary": "NumPy: np.partition for the k-th value, then sort the k"},
}
