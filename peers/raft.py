"""raft.py - RAFT's select_k (pylibraft.matrix.select_k) on the GPU.

  raft_select_k  topk: select_k(select_min=False) into preallocated torch
                 tensors (float32 values, int64 indices, through the CUDA array
                 interface): one batched call over a [segments, length] view
                 when every segment has the same length (32x4096, 1xL), else
                 one call per segment (the RPN levels); then the k put in the
                 op's order, value descending and ties by lower index, by two
                 torch sorts of the k (select_k's k come unsorted), timed with
                 it. Indices are within the segment, as the op's.

How it is judged. RAFT promises neither which of equal values at the k-th
place it keeps nor that -0 and +0 are equal (its radix select orders the
bits: -0 below +0), so the row is declared nondeterministic and held to the
op's exact check: where a tie crosses the k-th place and RAFT keeps another
index, or a -0/+0 pair decides a place, the row FAILs and its note names the
slot. On the uniform cases neither happens in practice.

Where select_k is. pylibraft.matrix.select_k is absent from the pylibraft
wheels of the index that were read (pylibraft-cu13 25.10.0 and 26.10.0,
pylibraft-cu12 25.6.0): RAFT's select_k is a header-only C++ template there
(raft/matrix/select_k.cuh in libraft), and cuVS's cuvs::selection::select_k
has no Python binding (cuvs-cu13 26.10.0; only its C cuvsSelectK, one row).
A pylibraft without it makes the row UNSUPPORTED and says so, as a missing
pylibraft does; one that has it runs.

  kbench run topk --peers   (every file under peers/; docs/python.md)
"""
from _common import library, peer, timed, topk_torch, torch_lib, version

INSTALL = "pip install pylibraft-cu13 (a release with pylibraft.matrix.select_k)"
VERSION = version("pylibraft", "torch")


def select_k_of():
    """pylibraft.matrix.select_k, or NotImplementedError (an UNSUPPORTED row) saying why not."""
    pylibraft = library("pylibraft", INSTALL)
    try:
        from pylibraft.matrix import select_k
    except ImportError as e:
        raise NotImplementedError(
            "pylibraft %s has no pylibraft.matrix.select_k (%s): RAFT's select_k is C++ only "
            "there (raft/matrix/select_k.cuh) and cuVS's has no Python binding"
            % (getattr(pylibraft, "__version__", "?"), e))
    return select_k


def topk(values, offsets, k, **_):
    import numpy as np
    select_k = select_k_of()
    torch = torch_lib()
    from pylibraft.common import Handle
    stream = torch.cuda.current_stream()
    try:  # on torch's stream, where kbench's events and flush are
        handle, on_torch = Handle(stream=stream.cuda_stream), True
    except TypeError:  # a pylibraft that takes only its own Stream objects
        handle, on_torch = Handle(), False
    # the layout and the conversion to the op's outputs are torch's peer's
    _, finish, how = topk_torch(values, offsets, k, False)
    off = offsets.cpu().numpy().astype(np.int64)
    lengths = np.diff(off)
    segs = len(lengths)
    equal = segs > 0 and (lengths == lengths[0]).all() and lengths[0] > 0
    if equal:  # one call over [segments, length]
        rows = [(values.view(segs, -1), min(k, int(lengths[0])))]
    else:  # one call per segment; an empty one (or k = 0) makes none
        rows = [(values[int(off[s]):int(off[s + 1])].view(1, -1), min(k, int(lengths[s])))
                for s in range(segs)]
    outs = [(torch.empty((src.shape[0], m), device="cuda"),
             torch.empty((src.shape[0], m), dtype=torch.int64, device="cuda")) if m > 0 else None
            for src, m in rows]
    nothing = (torch.zeros(0), torch.zeros(0, dtype=torch.int64))

    def order(v, i):
        """The k of each row by value descending, equal values lower index first."""
        i, by_index = i.sort(dim=1)
        v = v.gather(1, by_index)
        v, by_value = v.sort(dim=1, descending=True, stable=True)
        return v, i.gather(1, by_value)

    def run():
        if not on_torch:  # the flush and the start event done before select_k starts
            stream.synchronize()
        for (src, _), out in zip(rows, outs):
            if out is not None:
                select_k(src, distances=out[0], indices=out[1], select_min=False, handle=handle)
        if not on_torch:
            handle.sync()
        ranked = [order(*out) if out is not None else None for out in outs]
        if equal:
            return [r for r in ranked if r is not None]
        return [(r[0][0], r[1][0]) if r is not None else nothing for r in ranked]

    return timed(run, finish), "select_k(select_min=False) %s, the k sorted by torch; %s" % (
        "on torch's stream" if on_torch else "on its handle's stream, host-synchronised", how)


KBENCH = {
    "topk/raft_select_k": peer(topk, "RAFT select_k (pylibraft.matrix), then the k sorted",
                               deterministic=False, version=VERSION),
}
