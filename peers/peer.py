"""peer.py — one peer implementation of an op on one case, as the op modules
(peers/op_<op>.py) describe it to run.py.

A peer's `run()` does the whole op once (on the GPU: only enqueues, or syncs
where the library itself does, as torchvision's nms does), returns whatever
the library returns; `outputs(result)` turns that into the op's output
tensors in kbench's layout (names, dtypes, shapes of `kbench list OP`), as
numpy arrays, for `kbench verify`. The conversion is not timed: it is the
check's cost, not the op's.
"""


class Peer:
    def __init__(self, name, run, outputs, note="", precision=None, cpu=False, checked=True,
                 differs=None):
        self.name = name            # the CSV's variant is "peer:" + name
        self.run = run
        self.outputs = outputs
        self.note = note            # how the peer computes it, said in every row
        self.precision = precision  # kbench verify --precision (None: the case's dtype)
        self.cpu = cpu              # timed by wall clock on the host, not CUDA events
        self.checked = checked      # False: a reference point of other work (UNCHECKED)
        self.differs = differs      # other semantics: outputs -> how they differ from the op


class Unsupported(Exception):
    """The peer cannot do this case (a dtype the library lacks, ...): an
    UNSUPPORTED row with the reason, as a kbench variant's supports() gives."""
