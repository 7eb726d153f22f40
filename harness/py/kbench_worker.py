# kbench_worker.py - the Python side of `kbench run OP --py FILE.py` and `--peers`.
#
# kbench embeds this file and runs it as `PYTHON -u -c SCRIPT list FILE` (what
# FILE's KBENCH dict registers: a tab-separated line an entry, then `end`) and as
# `PYTHON -u -c SCRIPT serve FILE FD_IN FD_OUT` (a JSON request a line on FD_IN;
# for each: load the case's inputs, call the entry twice for the check, time it
# by kbench's warm-up and stop rule, write a./b./t.<output>.npy, and answer
# lines ending with `end` on FD_OUT). kbench judges the outputs and writes the
# rows. The contract and the protocol: docs/python.md.
#
# Standard library only at start (so `list` runs anywhere), numpy at the first
# request, torch only for `where: cuda` entries. One self-contained file that
# never reads __file__: it runs from a string. The user's prints go to stderr.
import contextlib
import json
import math
import os
import re
import sys
import time
import traceback

DEFAULTS = {"fn": None, "setup": None, "outputs": None, "where": "cuda", "deterministic": True,
            "semantics": "exact", "check": True, "precision": None, "peer": False, "version": "",
            "differs": None, "summary": ""}
IS_BOOL = (lambda v: isinstance(v, bool), "True or False")
IS_CALLABLE = (callable, "callable")
RULES = {  # key: (whether a value is valid, what it must be)
    "fn": IS_CALLABLE, "setup": IS_CALLABLE, "outputs": IS_CALLABLE, "differs": IS_CALLABLE,
    "where": (lambda v: v in ("cuda", "host"), "'cuda' or 'host'"),
    "semantics": (lambda v: v in ("exact", "other"), "'exact' or 'other'"),
    "precision": (lambda v: v in (None, "f32", "tf32", "f16", "bf16"),
                  "None, 'f32', 'tf32', 'f16' or 'bf16'"),
    "deterministic": IS_BOOL, "check": IS_BOOL, "peer": IS_BOOL,
    "version": (lambda v: isinstance(v, str) or callable(v), "a str or a callable"),
    "summary": (lambda v: isinstance(v, str), "a str")}
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*\Z")  # a CSV field and a -v word
NUMPY = {"u8": "uint8", "i32": "int32", "i64": "int64", "f16": "float16", "bf16": "float32",
         "f32": "float32", "f64": "float64"}  # bf16 travels as float32 holding bf16 values
np = torch = None  # imported when first needed


class BadFile(Exception):
    """FILE does not import, or its KBENCH is malformed: one line that says why."""


class Mismatch(Exception):
    """An output that the op's declaration cannot take (missing, shape, range): FAIL."""


class Refused(Exception):
    """(status, reason): a request answered before any work."""


def one_line(text):
    return str(text).replace("\r", " ").replace("\n", " ").replace("\t", " ").strip()


def last_line(e):
    """An exception as its traceback's last line says it: 'TypeError: ...'."""
    kind = type(e).__name__
    if type(e).__module__ not in ("builtins", "__main__"):
        kind = type(e).__module__ + "." + kind
    return one_line("%s: %s" % (kind, e) if str(e) else kind)


def load(path):
    """FILE's entries. Its folder is first on sys.path while it imports (its
    siblings import by name) and leaves it then, so that a library imported
    later, in setup, is the installed one and never a same-named file beside
    it (peers/torchvision.py imports torchvision)."""
    import importlib.util
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location("kbench_py_file", path)
        if spec is None:
            raise BadFile("%s: not a Python file (.py)" % path)
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except BadFile:
        raise
    except BaseException as e:  # a SystemExit at import is the file's failure too
        traceback.print_exc()
        raise BadFile(last_line(e))
    finally:
        sys.path.remove(folder)
    table = getattr(module, "KBENCH", None)
    if not isinstance(table, dict):
        raise BadFile('KBENCH is %s, not a dict of "op/name" -> callable or dict' %
                      ("missing" if table is None else "a " + type(table).__name__))
    return {key: check_entry(key, value) for key, value in table.items()}


def check_entry(key, value):
    at = "KBENCH[%r]" % (key,)
    parts = key.split("/") if isinstance(key, str) else []
    if len(parts) != 2 or not all(NAME.match(p) for p in parts):
        raise BadFile('%s: a key is "op/name" (letters, digits, _ . + -)' % at)
    e = {"fn": value} if callable(value) else value
    if not isinstance(e, dict):
        raise BadFile("%s: a %s, not a callable or a dict" % (at, type(value).__name__))
    for k, v in e.items():
        if k not in RULES:
            raise BadFile("%s: unknown key %r (keys: %s)" % (at, k, ", ".join(DEFAULTS)))
        if not RULES[k][0](v):
            raise BadFile("%s: %r is %r, not %s" % (at, k, v, RULES[k][1]))
    if ("fn" in e) == ("setup" in e):
        raise BadFile('%s: needs "fn" (timed with the inputs) or "setup" (returns the callable'
                      ' to time), one of them' % at)
    if "differs" in e and e.get("check", True):
        raise BadFile("%s: 'differs' says how a 'check': False entry differs; this one is checked"
                      % at)
    return dict(DEFAULTS, **e, op=parts[0], name=parts[1])


def listing(e):
    flag = {True: "1", False: "0"}
    return "\t".join(["variant", e["op"], e["name"], e["where"], flag[e["deterministic"]],
                      e["semantics"], flag[e["peer"]], flag[e["check"]], e["precision"] or "-",
                      one_line(e["summary"])])


# ---- outputs: the op's declared names, shapes and dtypes ----

def round_bf16(a):
    """float32 values rounded to the nearest bf16 (ties to even), as float32."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    r = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return np.where(np.isnan(a), a, r.view(np.float32))


def to_declared(name, v, dtype, shape):
    """v (a torch tensor on any device, an array, a list) as the declared dtype
    when that loses no value; else Mismatch."""
    if hasattr(v, "detach") and hasattr(v, "cpu"):
        v = v.detach()
        v = (v.float() if str(v.dtype) == "torch.bfloat16" else v).cpu().numpy()
    a, want = np.asarray(v), np.dtype(NUMPY[dtype])
    if a.shape != shape:
        raise Mismatch("%s: shape %s where the op declares %s" % (name, list(a.shape), list(shape)))
    if a.dtype.kind not in "biuf":
        raise Mismatch("%s: dtype %s is not numbers (declared %s)" % (name, a.dtype, dtype))
    if a.dtype == want and dtype != "bf16":
        return a
    with np.errstate(invalid="ignore", over="ignore"):
        b = round_bf16(a.astype(want)) if dtype == "bf16" else a.astype(want)
        # an integer out of range wrapped, a fraction or a NaN was cut; a float
        # that became inf overflowed (rounding is for the op's check to judge)
        bad = (b != a) if want.kind in "iu" else np.isfinite(a) & ~np.isfinite(b)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise Mismatch("%s: value %r at flat index %d does not fit in %s" %
                       (name, a.flat[i].item(), i, dtype))
    return b


def declared(e, result, outs):
    got = e["outputs"](result) if e["outputs"] else result
    if not isinstance(got, dict):
        raise TypeError("%s/%s returned a %s, not a dict of output name -> array" %
                        (e["op"], e["name"], type(got).__name__))
    missing = [o["name"] for o in outs if o["name"] not in got]
    if missing:
        raise Mismatch("no output %r (returned: %s)" % (missing[0], ", ".join(map(str, got))
                                                         or "nothing"))
    return {o["name"]: to_declared(o["name"], got[o["name"]], o["dtype"], tuple(o["shape"]))
            for o in outs}


def write(arrays, out_dir, tag, reply):
    for name, a in arrays.items():
        np.save(os.path.join(out_dir, "%s.%s.npy" % (tag, name)), np.ascontiguousarray(a))
    reply["written"].append(tag)


# ---- timing: harness/run/measure_{host,cold,hot}.c and stats.c's kb_should_stop ----

class StopRule:
    """kb_should_stop a sample at a time (Welford's running mean and sum of
    squares: O(1) a sample, where 20000 samples would make the C side's O(n)
    pass quadratic in Python)."""

    def __init__(self, rule):
        self.min, self.noise = rule["min_samples"], rule["max_noise"]
        self.time, self.max = rule["max_time_s"], rule["max_samples"]
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def done(self, x, elapsed):
        self.n += 1
        d = x - self.mean
        self.mean += d / self.n
        self.m2 += d * (x - self.mean)
        n = self.n
        if n >= self.max or (n >= self.min and elapsed >= self.time):
            return True
        if n < self.min:
            return elapsed >= 4 * self.time
        sd = math.sqrt(max(self.m2, 0.0) / (n - 1)) if n > 1 else 0.0
        return (sd / self.mean if n > 1 and self.mean > 0 else 0.0) <= self.noise


def batch_size(per_call_s):
    """kb_batch_size: about 200 us of calls a hot sample."""
    return 100 if per_call_s <= 0 else max(1, min(1000, int(200e-6 / per_call_s)))


class Clock:
    """On the host, the wall clock around the calls, nothing flushed (README
    "Timing"). On the GPU, CUDA events on the current stream; in cold mode,
    before each sample and outside the events, kbench's --flush over twice
    the L2 (l2_flush.h)."""
    buffers = {}  # bytes -> a flush buffer, kept across requests

    def __init__(self, req, cuda):
        self.cuda, self.warmup_calls = cuda, 2 if cuda else 1  # a first launch loads a module
        self.kind = req["flush"] if cuda and req["mode"] == "cold" else None
        if cuda:
            self.start, self.stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        if self.kind:
            n = -(-2 * req["l2_bytes"] // 128) * 128
            if n not in self.buffers:
                self.buffers[n] = torch.empty(n, dtype=torch.uint8, device="cuda")
            self.buf = self.buffers[n]

    def flush(self, sample):
        if self.kind in ("write", "write-read"):
            self.buf.fill_(sample & 0xFF)
        if self.kind in ("read", "write-read"):
            self.buf.view(torch.int32).sum()

    def time(self, call, batch):
        """(seconds a call over `batch` calls back to back, the last one's result)"""
        if not self.cuda:
            t0 = time.perf_counter()
            for _ in range(batch):
                r = call()
            return (time.perf_counter() - t0) / batch, r
        self.start.record()
        for _ in range(batch):
            r = call()
        self.stop.record()
        self.stop.synchronize()
        return self.start.elapsed_time(self.stop) * 1e-3 / batch, r


def measure(call, req, clock):
    """kb_warmup, then samples until the stop rule: (seconds a call, the last result)."""
    with nvtx("warm-up", clock.cuda):
        t0, calls, one = time.perf_counter(), 0, 0.0
        while calls < 1000 and (calls < clock.warmup_calls or
                                time.perf_counter() - t0 < req["warmup_s"]):
            one, last = clock.time(call, 1)
            calls += 1
    batch, rule, samples = batch_size(one) if req["mode"] == "hot" else 1, StopRule(req["rule"]), []
    with nvtx("samples", clock.cuda):
        t0 = time.perf_counter()
        while True:
            clock.flush(len(samples))
            s, last = clock.time(call, batch)
            samples.append(s)
            if rule.done(s, time.perf_counter() - t0):
                return samples, last


@contextlib.contextmanager
def nvtx(name, cuda):
    """A torch NVTX range around the block, on the GPU."""
    if cuda:
        torch.cuda.nvtx.range_push(name)
    try:
        yield
    finally:
        if cuda:
            torch.cuda.nvtx.range_pop()


# ---- one request ----

def refusal(req, e):
    """Why kbench's timing cannot be done as asked, or None."""
    if req["mode"] == "graph":
        return "a Python variant is not graph-captured (time it with --mode cold or hot)"
    if e["where"] == "cuda" and req["timing"] and req["mode"] == "cold" and \
            req["flush"] not in ("write", "read", "write-read"):
        return ("--flush %s is not available to a Python variant (write, read or write-read)" %
                req["flush"])
    return None


def inputs_of(req, cuda):
    out = {}
    for t in req["inputs"]:
        a = np.load(os.path.join(req["case_dir"], t["name"] + ".npy"))
        a = a.astype(NUMPY[t["dtype"]], copy=False)
        if cuda:
            x = torch.from_numpy(a).cuda()
            out[t["name"]] = x.to(torch.bfloat16) if t["dtype"] == "bf16" else x
        else:
            a.setflags(write=False)  # kbench's inputs are const: a write raises, never drifts
            out[t["name"]] = a
    return out


def work(req, e, reply, cuda):
    """The protocol's steps 1-4, into reply; exceptions go to the caller."""
    outs = req["outputs"]
    with nvtx(req.get("nvtx") or "%s/%s" % (e["op"], e["name"]), cuda):
        kwargs = inputs_of(req, cuda)
        for k, v in req["axes"].items():  # nms `classes`: the tensor keeps the name
            kwargs[k + "_axis" if k in kwargs else k] = v
        call, note = (lambda: e["fn"](**kwargs)), ""
        if e["setup"]:
            made = e["setup"](**kwargs)
            call, note = made if isinstance(made, tuple) and len(made) == 2 else (made, "")
            if not callable(call):
                raise TypeError("setup returned a %s, not a callable or (callable, note)" %
                                type(made).__name__)
        reply["notes"] += [e["version"]() if callable(e["version"]) else e["version"], note]
        first = last = None
        if req["check"]:
            with nvtx("check", cuda):
                first = declared(e, call(), outs)
                write(first, req["out_dir"], "a", reply)
                write(declared(e, call(), outs), req["out_dir"], "b", reply)
        if req["timing"]:
            reply["samples"], result = measure(call, req, Clock(req, cuda))
            last = declared(e, result, outs)
            write(last, req["out_dir"], "t", reply)
        if e["differs"] and req["reference"]:
            ref = {o["name"]: np.load(os.path.join(req["case_dir"], "reference.%s.npy" %
                                                   o["name"])) for o in outs}
            reply["notes"].append(e["differs"](first or last or declared(e, call(), outs), ref))


def answer(line, entries, broken):
    """The reply to one request line, as its lines."""
    global np, torch
    reply = {"status": "ok", "reason": "", "notes": [], "samples": None, "written": []}
    try:
        req = json.loads(line)
        e = entries.get("%s/%s" % (req["op"], req["name"]))
        if broken or e is None:
            raise Refused("error", broken or "the file registers no %s/%s (it has: %s)" % (
                req["op"], req["name"], ", ".join(entries) or "nothing"))
        why = refusal(req, e)
        if why:
            raise Refused("unsupported", why)
        import numpy as np
        if e["where"] == "cuda":
            try:
                import torch
            except ImportError as x:
                raise Refused("unsupported", 'where "cuda" needs torch: ' + last_line(x))
            if not torch.cuda.is_available():
                raise Refused("unsupported", "torch %s sees no CUDA device" % torch.__version__)
        work(req, e, reply, e["where"] == "cuda")
    except Refused as x:
        reply["status"], reply["reason"] = x.args
    except Mismatch as x:
        reply["status"], reply["reason"] = "fail", str(x)
    except NotImplementedError as x:
        reply["status"], reply["reason"] = "unsupported", str(x) or "NotImplementedError"
    except (Exception, SystemExit) as x:
        oom = getattr(getattr(sys.modules.get("torch"), "cuda", None), "OutOfMemoryError", ())
        if oom and isinstance(x, oom):
            reply["status"] = "unsupported"
            reply["reason"] = "out of device memory: " + str(x).strip().split("\n")[0][:300]
        else:
            traceback.print_exc()
            reply["status"], reply["reason"] = "error", last_line(x)
    lines = ["status " + reply["status"]]
    if reply["status"] != "ok":
        lines.append("reason " + (one_line(reply["reason"]) or "(no reason given)"))
    note = "; ".join(one_line(n) for n in reply["notes"] if one_line(n))
    lines += ["note " + note] if note else []
    if reply["samples"] is not None:
        lines.append("samples " + " ".join("%.9e" % s for s in reply["samples"]))
    lines += ["written " + " ".join(reply["written"])] if reply["written"] else []
    return "\n".join(lines + ["end"]) + "\n"


# ---- the commands ----

def protocol_out(fd):
    """A file on fd for the protocol; fd 1 then points at stderr, so that a
    print (or a C library's printf) of the user's never reaches the protocol."""
    out = os.fdopen(os.dup(fd), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main(argv):
    if len(argv) == 2 and argv[0] == "list":
        out = protocol_out(1)
        try:
            lines = [listing(e) for e in load(argv[1]).values()]
        except BadFile as x:
            lines = ["error\t" + one_line(x)]
        out.write("".join(line + "\n" for line in lines) + "end\n")
        out.flush()
        return 0
    if len(argv) == 4 and argv[0] == "serve" and argv[2].isdigit() and argv[3].isdigit():
        out = protocol_out(int(argv[3]))
        try:
            entries, broken = load(argv[1]), None
        except BadFile as x:
            entries, broken = {}, one_line(x)
        requests = os.fdopen(int(argv[2]), "r")
        with contextlib.suppress(BrokenPipeError):  # kbench went away: nothing to answer
            for line in iter(requests.readline, ""):  # EOF ends the worker
                if line.strip():
                    out.write(answer(line, entries, broken))
                    out.flush()
                    if torch is not None:  # the request's tensors are gone: give them back
                        with contextlib.suppress(Exception):
                            torch.cuda.empty_cache()
        return 0
    sys.stderr.write("usage: kbench_worker.py list FILE | serve FILE FD_IN FD_OUT\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
