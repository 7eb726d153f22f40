"""test_worker.py - harness/py/kbench_worker.py as kbench drives it, with host
(NumPy) entries: no torch, no GPU.

  python3 tests/py/test_worker.py        (CTest: py_worker, label cpu)

The worker runs as kbench runs it, `python -u -c SOURCE list|serve ...`, with
the requests on one pipe and the replies on another. It needs NumPy: this file
re-runs itself under the first of python3, /usr/bin/python3 that has it, and
exits 77 (CTest: skipped) where none has. Also here: every file under peers/
and examples/python/ compiles and lists without torch, and the yolo peer's
count of differing detections.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORKER = os.path.join(ROOT, "harness", "py", "kbench_worker.py")


def need_numpy():
    try:
        import numpy  # noqa: F401
        return
    except ImportError:
        pass
    if not os.environ.get("KBT_PY_REEXEC"):  # once: a re-run that lacks it too skips
        for py in ("python3", "/usr/bin/python3"):
            if shutil.which(py) and subprocess.run([py, "-c", "import numpy"],
                                                   capture_output=True).returncode == 0:
                os.environ["KBT_PY_REEXEC"] = "1"
                os.execvp(py, [py] + sys.argv)
    print("none of python3, /usr/bin/python3 has NumPy: skipped")
    sys.exit(1 if os.environ.get("KB_REQUIRE_NUMPY") == "1" else 77)


need_numpy()
import numpy as np  # noqa: E402

SOURCE = open(WORKER).read()

# Host entries that behave well and badly. COUNT counts calls, so that a test
# can read from t.calls.npy how many calls came before the last timed one.
ENTRIES = '''
import os, time
import numpy as np
print("a print at import: not part of the listing")
COUNT = [0]

def count(**_):
    COUNT[0] += 1
    return {"calls": np.array([COUNT[0]], dtype=np.int64)}

def slow_count(**_):
    time.sleep(0.002)
    return count()

def nap(**_):
    time.sleep(0.01)
    return {"calls": np.array([0])}

def raises(**_):
    raise ValueError("the input is odd")

def noisy(x, **_):
    print("a print in fn")
    os.write(1, b"a write to fd 1\\n")
    return {"y": x * 2}

def not_here(**_):
    raise NotImplementedError("dtype=bf16: this library has none")

def collide(classes, classes_axis, **_):
    return {"y": classes * classes_axis}

def setup(x, scale, **_):
    return (lambda: {"y": x * scale}), "prepared in setup"

KBENCH = {
    "t/count": {"fn": count, "where": "host"},
    "t/slow_count": {"fn": slow_count, "where": "host"},
    "t/nap": {"fn": nap, "where": "host"},
    "t/raises": {"fn": raises, "where": "host"},
    "t/wrong_shape": {"fn": lambda **_: {"y": np.zeros(3, np.float32)}, "where": "host"},
    "t/missing": {"fn": lambda **_: {"z": 1}, "where": "host"},
    "t/not_a_dict": {"fn": lambda **_: [1, 2], "where": "host"},
    "t/too_big": {"fn": lambda **_: {"y": np.array([2 ** 40, 1], np.int64)}, "where": "host"},
    "t/int64": {"fn": lambda **_: {"y": np.array([7, -1], np.int64)}, "where": "host"},
    "t/to_bf16": {"fn": lambda **_: {"y": np.array([1.00390625, 3.0], np.float32)},
                  "where": "host"},
    "t/not_here": {"fn": not_here, "where": "host"},
    "t/noisy": {"fn": noisy, "where": "host"},
    "t/collide": {"fn": collide, "where": "host"},
    "t/setup": {"setup": setup, "where": "host", "version": lambda: "lib 1.2"},
    "t/other": {"fn": lambda x, **_: {"y": x + 1}, "where": "host", "check": False,
                "differs": lambda out, ref: "%d of %d differ" % (
                    (out["y"] != ref["y"]).sum(), ref["y"].size),
                "peer": True, "deterministic": False, "semantics": "other",
                "precision": "tf32", "summary": "a\\tpeer"},
    "t/gpu": lambda **_: {},
}
'''


class Worker:
    """One `serve` worker: requests on a pipe, replies on another, as kbench."""

    def __init__(self, path, tmp):
        req_r, self.req_w = os.pipe()
        self.rep_r, rep_w = os.pipe()
        self.stdout = open(os.path.join(tmp, "stdout"), "w+")
        self.stderr = open(os.path.join(tmp, "stderr"), "w+")
        self.p = subprocess.Popen(
            [sys.executable, "-u", "-c", SOURCE, "serve", path, str(req_r), str(rep_w)],
            pass_fds=(req_r, rep_w), stdout=self.stdout, stderr=self.stderr, cwd=tmp)
        os.close(req_r)
        os.close(rep_w)
        self.replies = os.fdopen(self.rep_r, "r")

    def ask(self, req):
        os.write(self.req_w, (json.dumps(req) + "\n").encode())
        lines = []
        while True:
            line = self.replies.readline()
            assert line, "the worker closed its replies before 'end': " + self.err()
            if line == "end\n":
                return parse(lines)
            lines.append(line.rstrip("\n"))

    def close(self):
        os.close(self.req_w)
        return self.p.wait(timeout=30)

    def out(self):
        self.stdout.seek(0)
        return self.stdout.read()

    def err(self):
        self.stderr.seek(0)
        return self.stderr.read()


def parse(lines):
    reply = {"lines": lines}
    for line in lines:
        key, _, rest = line.partition(" ")
        assert key not in reply, "%s twice in %s" % (key, lines)
        reply[key] = rest
    if "samples" in reply:
        reply["samples"] = [float(s) for s in reply["samples"].split()]
    reply["written"] = reply.get("written", "").split()
    return reply


def listing(path):
    p = subprocess.run([sys.executable, "-u", "-c", SOURCE, "list", path], capture_output=True,
                       text=True, cwd=os.path.dirname(path))
    return p.returncode, p.stdout.splitlines(), p.stderr


FAST = {"min_samples": 3, "max_noise": 1e9, "max_time_s": 10.0, "max_samples": 100}


class WorkerTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.case = os.path.join(self.tmp, "case")
        self.out = os.path.join(self.tmp, "out")
        os.makedirs(self.case)
        os.makedirs(self.out)
        self.workers = []

    def tearDown(self):
        for w in self.workers:
            if w.p.poll() is None:
                w.p.kill()
                w.p.wait()
            for f in (w.stdout, w.stderr, w.replies):
                f.close()
        self._tmp.cleanup()

    def file(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path

    def worker(self, path):
        w = Worker(path, self.tmp)
        self.workers.append(w)
        return w

    def request(self, name, op="t", inputs=(), outputs=(), axes=None, **kw):
        req = {"name": name, "op": op, "case_dir": self.case, "out_dir": self.out,
               "inputs": [{"name": n, "dtype": d} for n, d in inputs],
               "outputs": [{"name": n, "dtype": d, "shape": list(s)} for n, d, s in outputs],
               "reference": False, "axes": axes or {}, "check": True, "timing": True,
               "mode": "cold", "flush": "write-read", "l2_bytes": 52428800, "rule": FAST,
               "warmup_s": 0.0, "nvtx": "%s/%s" % (op, name)}
        req.update(kw)
        return req

    def saved(self, tag, name):
        return np.load(os.path.join(self.out, "%s.%s.npy" % (tag, name)))

    def put(self, name, array):
        np.save(os.path.join(self.case, name + ".npy"), array)

    # ---- list ----

    def test_list_names_every_entry_with_its_flags_and_prints_go_to_stderr(self):
        rc, lines, err = listing(self.file("entries.py", ENTRIES))
        self.assertEqual(rc, 0, err)
        self.assertEqual(lines[-1], "end")
        self.assertEqual(len(lines), 17, lines)
        self.assertIn("variant\tt\tcount\thost\t1\texact\t0\t1\t-\t", lines)
        self.assertIn("variant\tt\tother\thost\t0\tother\t1\t0\ttf32\ta peer", lines)
        self.assertIn("variant\tt\tgpu\tcuda\t1\texact\t0\t1\t-\t", lines)
        self.assertIn("a print at import", err)

    def test_list_of_a_file_that_fails_to_import_is_an_error_line(self):
        for text, why in [("import no_such_module_here\n",
                           "error\tModuleNotFoundError: No module named 'no_such_module_here'"),
                          ("def f(:\n", "error\tSyntaxError: "),
                          ("raise SystemExit(3)\n", "error\tSystemExit: 3")]:
            rc, lines, err = listing(self.file("broken.py", text))
            self.assertEqual(rc, 0, err)
            self.assertEqual(len(lines), 2, lines)
            self.assertTrue(lines[0].startswith(why), lines)
            self.assertEqual(lines[1], "end")

    def test_list_of_a_malformed_kbench_names_what_is_wrong(self):
        f = "def f(**_): return {}\n"
        for kbench, said in [
                ("", "KBENCH is missing"),
                ("KBENCH = [f]", "KBENCH is a list"),
                ("KBENCH = {'topk': f}", "KBENCH['topk']: a key is \"op/name\""),
                ("KBENCH = {'topk/a b': f}", "KBENCH['topk/a b']: a key is"),
                ("KBENCH = {'topk/x': 3}", "KBENCH['topk/x']: a int, not a callable or a dict"),
                ("KBENCH = {'topk/x': {'fnn': f}}", "KBENCH['topk/x']: unknown key 'fnn'"),
                ("KBENCH = {'topk/x': {'where': 'host'}}", "KBENCH['topk/x']: needs \"fn\""),
                ("KBENCH = {'topk/x': {'fn': f, 'setup': f}}", "KBENCH['topk/x']: needs \"fn\""),
                ("KBENCH = {'topk/x': {'fn': 1}}", "KBENCH['topk/x']: 'fn' is 1, not callable"),
                ("KBENCH = {'topk/x': {'fn': f, 'where': 'gpu'}}",
                 "KBENCH['topk/x']: 'where' is 'gpu', not 'cuda' or 'host'"),
                ("KBENCH = {'topk/x': {'fn': f, 'precision': 'fp8'}}", "'precision' is 'fp8'"),
                ("KBENCH = {'topk/x': {'fn': f, 'check': 'no'}}", "'check' is 'no', not True"),
                ("KBENCH = {'topk/x': {'fn': f, 'version': 2}}", "'version' is 2, not a str or a callable"),
                ("KBENCH = {'topk/x': {'fn': f, 'differs': f}}", "'differs' says how a 'check'")]:
            rc, lines, err = listing(self.file("bad.py", f + kbench + "\n"))
            self.assertEqual(rc, 0, err)
            self.assertEqual(len(lines), 2, (kbench, lines))
            self.assertTrue(lines[0].startswith("error\t") and said in lines[0], (said, lines))

    # ---- serve ----

    def test_topk_example_writes_the_ops_outputs_and_three_samples(self):
        # segments: ties with -0/+0 across the k-th value, one shorter than k, one empty
        values = np.array([0.5, -0.0, 0.0, 0.5, -1.0, 0.0, 2.0, -0.0,  # 8
                           3.0, 1.0,  # 2 < k
                           7.0, 7.0, 7.0, 7.0, 7.0, 7.0], np.float32)
        offsets = np.array([0, 8, 10, 10, 16], np.int32)
        k = 4
        self.put("values", values)
        self.put("offsets", offsets)
        w = self.worker(os.path.join(ROOT, "examples", "python", "topk_numpy.py"))
        outs = [("topk_values", "f32", (4, k)), ("topk_indices", "i32", (4, k)),
                ("counts", "i32", (4,))]
        r = w.ask(self.request("numpy_select", op="topk",
                               inputs=[("values", "f32"), ("offsets", "i32")], outputs=outs,
                               axes={"segments": "8+2+0+6", "k": k, "batch": 1, "dist": "ties"}))
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(r["written"], ["a", "b", "t"])
        self.assertEqual(len(r["samples"]), 3)
        self.assertTrue(all(s > 0 for s in r["samples"]), r["samples"])
        want_v = np.full((4, k), -np.inf, np.float32)
        want_i = np.full((4, k), -1, np.int32)
        for s in range(4):
            seg = values[offsets[s]:offsets[s + 1]]
            order = sorted(range(len(seg)), key=lambda j: (-seg[j], j))[:k]
            want_v[s, :len(order)] = seg[order]
            want_i[s, :len(order)] = order
        self.assertEqual(want_i[0].tolist(), [6, 0, 3, 1])  # 2, .5, .5, then -0 at index 1
        for tag in "abt":
            self.assertEqual(self.saved(tag, "topk_values").tobytes(), want_v.tobytes(), tag)
            self.assertEqual(self.saved(tag, "topk_indices").tolist(), want_i.tolist(), tag)
            self.assertEqual(self.saved(tag, "counts").tolist(), [4, 2, 0, 4], tag)
            self.assertEqual(self.saved(tag, "topk_indices").dtype, np.int32)
        self.assertEqual(w.close(), 0)

    def test_a_raise_is_an_error_with_its_last_line_and_the_traceback_on_stderr(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        r = w.ask(self.request("raises", outputs=[("y", "f32", (3,))]))
        self.assertEqual((r["status"], r["reason"]), ("error", "ValueError: the input is odd"))
        self.assertNotIn("samples", r)
        self.assertEqual(w.close(), 0)
        self.assertIn("Traceback", w.err())

    def test_outputs_the_op_cannot_take_fail_with_the_reason(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        y3 = [("y", "f32", (3, 1))]
        for name, outs, status, why in [
                ("wrong_shape", y3, "fail", "y: shape [3] where the op declares [3, 1]"),
                ("missing", y3, "fail", "no output 'y' (returned: z)"),
                ("too_big", [("y", "i32", (2,))], "fail",
                 "y: value 1099511627776 at flat index 0 does not fit in i32"),
                ("not_a_dict", y3, "error", "TypeError: t/not_a_dict returned a list")]:
            r = w.ask(self.request(name, outputs=outs))
            self.assertEqual(r["status"], status, (name, r))
            self.assertTrue(r["reason"].startswith(why), (name, r["reason"]))
            self.assertEqual(r["written"], [], name)

    def test_outputs_convert_to_the_declared_dtype_when_nothing_is_lost(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        r = w.ask(self.request("int64", outputs=[("y", "i32", (2,))], timing=False))
        self.assertEqual((r["status"], r["written"]), ("ok", ["a", "b"]), r)
        self.assertNotIn("samples", r)
        self.assertEqual(self.saved("a", "y").dtype, np.int32)
        self.assertEqual(self.saved("a", "y").tolist(), [7, -1])
        self.assertFalse(os.path.exists(os.path.join(self.out, "t.y.npy")))
        # bf16: float32 on disk, each value rounded to bf16 (1 + 2^-8 is a tie: to even, 1)
        r = w.ask(self.request("to_bf16", outputs=[("y", "bf16", (2,))], timing=False))
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(self.saved("a", "y").dtype, np.float32)
        self.assertEqual(self.saved("a", "y").tolist(), [1.0, 3.0])

    def test_not_implemented_is_unsupported_with_its_text(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        r = w.ask(self.request("not_here", outputs=[("y", "f32", (1,))]))
        self.assertEqual((r["status"], r["reason"]),
                         ("unsupported", "dtype=bf16: this library has none"))

    def test_prints_in_fn_reach_stderr_and_never_the_replies(self):
        self.put("x", np.arange(4, dtype=np.float32))
        w = self.worker(self.file("entries.py", ENTRIES))
        r = w.ask(self.request("noisy", inputs=[("x", "f32")], outputs=[("y", "f32", (4,))]))
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(self.saved("t", "y").tolist(), [0, 2, 4, 6])
        self.assertEqual(w.close(), 0)
        self.assertEqual(w.out(), "")
        self.assertIn("a print in fn", w.err())
        self.assertIn("a write to fd 1", w.err())
        self.assertIn("a print at import", w.err())

    def test_a_file_that_fails_to_import_answers_every_request_with_the_error(self):
        w = self.worker(self.file("broken.py", "import no_such_module_here\n"))
        for _ in range(2):
            r = w.ask(self.request("anything"))
            self.assertEqual(r["status"], "error")
            self.assertEqual(r["reason"], "ModuleNotFoundError: No module named "
                                          "'no_such_module_here'")
        self.assertEqual(w.close(), 0)

    def test_an_unknown_entry_is_an_error_naming_it(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        r = w.ask(self.request("nope"))
        self.assertEqual(r["status"], "error")
        self.assertTrue(r["reason"].startswith("the file registers no t/nope (it has: t/count,"))

    def test_samples_count_under_the_stop_rule(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        calls = [("calls", "i64", (1,))]
        # max_samples: a noise bound never met stops at the cap
        rule = {"min_samples": 2, "max_noise": -1, "max_time_s": 100.0, "max_samples": 7}
        self.assertEqual(len(w.ask(self.request("count", outputs=calls, rule=rule))["samples"]), 7)
        # max_time: stop there once there are min_samples (10 ms calls, 10 ms)
        rule = {"min_samples": 3, "max_noise": -1, "max_time_s": 0.01, "max_samples": 100}
        self.assertEqual(len(w.ask(self.request("nap", outputs=calls, rule=rule))["samples"]), 3)
        # --max-time 0: one sample (fewer than min_samples at 4x max_time), as kbench
        rule = {"min_samples": 4, "max_noise": -1, "max_time_s": 0.0, "max_samples": 100}
        r = w.ask(self.request("count", outputs=calls, rule=rule))
        self.assertEqual(len(r["samples"]), 1)
        # cold: one call a sample, after the check's two and one warm-up call (warmup_s 0)
        self.assertEqual(self.saved("t", "calls")[0] - self.saved("b", "calls")[0], 1 + 1)
        # under min_samples: the samples so far at 4x max_time (10 ms calls, 0.2 s)
        rule = {"min_samples": 1000, "max_noise": 1.0, "max_time_s": 0.05, "max_samples": 5000}
        n = len(w.ask(self.request("nap", outputs=calls, rule=rule, check=False))["samples"])
        self.assertTrue(5 <= n <= 21, n)
        # warm-up: calls until warmup_s has passed (2 ms calls, 0.1 s)
        r = w.ask(self.request("slow_count", outputs=calls, warmup_s=0.1, rule=FAST))
        warm = self.saved("t", "calls")[0] - self.saved("b", "calls")[0] - 3
        self.assertTrue(2 <= warm <= 51, warm)

    def test_hot_mode_times_a_batch_a_sample(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        calls = [("calls", "i64", (1,))]
        r = w.ask(self.request("count", outputs=calls, mode="hot"))
        self.assertEqual((r["status"], len(r["samples"])), ("ok", 3), r)
        timed = self.saved("t", "calls")[0] - self.saved("b", "calls")[0] - 1  # less warm-up
        self.assertEqual(timed % 3, 0, timed)
        self.assertTrue(1 < timed // 3 <= 1000, timed)  # a call of microseconds: a big batch
        # a call of 2 ms is over the 200 us a sample: a batch of one
        r = w.ask(self.request("slow_count", outputs=calls, mode="hot"))
        self.assertEqual(self.saved("t", "calls")[0] - self.saved("b", "calls")[0], 1 + 3)

    def test_graph_mode_and_an_unknown_flush_are_unsupported(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        r = w.ask(self.request("count", outputs=[("calls", "i64", (1,))], mode="graph"))
        self.assertEqual((r["status"], r["reason"]), (
            "unsupported",
            "a Python variant is not graph-captured (time it with --mode cold or hot)"))
        r = w.ask(self.request("gpu", flush="discard"))
        self.assertEqual((r["status"], r["reason"]), (
            "unsupported",
            "--flush discard is not available to a Python variant (write, read or write-read)"))
        # on the host nothing is flushed: any kind times alike
        r = w.ask(self.request("count", outputs=[("calls", "i64", (1,))], flush="discard"))
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(self.saved("t", "calls")[0] - self.saved("b", "calls")[0], 1 + 3)

    def test_setup_note_version_and_an_axis_named_like_a_tensor(self):
        self.put("x", np.arange(3, dtype=np.float32))
        self.put("classes", np.array([0, 1, 2], np.int32))
        w = self.worker(self.file("entries.py", ENTRIES))
        r = w.ask(self.request("setup", inputs=[("x", "f32")], outputs=[("y", "f32", (3,))],
                               axes={"scale": 2.5}))
        self.assertEqual((r["status"], r["note"]), ("ok", "lib 1.2; prepared in setup"), r)
        self.assertEqual(self.saved("a", "y").tolist(), [0, 2.5, 5])
        r = w.ask(self.request("collide", inputs=[("classes", "i32")],
                               outputs=[("y", "i32", (3,))], axes={"classes": 3}))
        self.assertEqual(r["status"], "ok", r)
        self.assertEqual(self.saved("a", "y").tolist(), [0, 3, 6])

    def test_differs_of_an_unchecked_entry_goes_to_the_note(self):
        self.put("x", np.arange(3, dtype=np.float32))
        self.put("reference.y", np.array([1, 2, 0], np.float32))
        w = self.worker(self.file("entries.py", ENTRIES))
        r = w.ask(self.request("other", inputs=[("x", "f32")], outputs=[("y", "f32", (3,))],
                               reference=True, check=False))
        self.assertEqual((r["status"], r["note"], r["written"]), ("ok", "1 of 3 differ", ["t"]))

    def test_a_bad_request_is_an_error_and_eof_ends_the_worker(self):
        w = self.worker(self.file("entries.py", ENTRIES))
        os.write(w.req_w, b"{not json\n")
        lines = []
        while True:
            line = w.replies.readline()
            if line in ("end\n", ""):
                break
            lines.append(line)
        self.assertEqual(lines[0], "status error\n")
        self.assertTrue(lines[1].startswith("reason json.decoder.JSONDecodeError: "), lines)
        self.assertEqual(w.close(), 0)


class PeerFilesTest(unittest.TestCase):
    """The peers and the examples need torch, OpenCV, a GPU to run; here they
    compile, and `list` registers each without importing any of those."""

    PEERS = {
        "torchvision.py": {"deform_conv2d/torchvision", "nms/torchvision_nms",
                           "nms/torchvision_batched_nms"},
        "torch_eager.py": {"deform_conv2d/cudnn_conv2d", "deform_conv2d/cudnn_conv2d_tf32",
                           "topk/torch_topk", "topk/torch_sort", "rpn_proposals/torch_mmdet",
                           "yolo_decode/torch_ultralytics", "preprocess/torch",
                           "preprocess/copy_floor"},
        "torch_compile.py": {"preprocess/torch_compile", "topk/torch_compile_topk",
                             "rpn_proposals/torch_compile_mmdet",
                             "yolo_decode/torch_compile_ultralytics"},
        "opencv.py": {"preprocess/opencv_cpu"},
        "cvcuda.py": {"preprocess/cvcuda", "nms/cvcuda_nms"},
        "kornia.py": {"preprocess/kornia"},
        "raft.py": {"topk/raft_select_k"},
    }

    def test_every_peer_file_lists_its_peers_without_torch(self):
        folder = os.path.join(ROOT, "peers")
        files = sorted(f for f in os.listdir(folder) if f.endswith(".py") and f[0] != "_")
        self.assertEqual(files, sorted(self.PEERS))
        for f in files:
            rc, lines, err = listing(os.path.join(folder, f))
            self.assertEqual((rc, lines[-1]), (0, "end"), (f, err))
            rows = [line.split("\t") for line in lines[:-1]]
            self.assertTrue(all(r[0] == "variant" and r[6] == "1" for r in rows), (f, lines))
            self.assertEqual({r[1] + "/" + r[2] for r in rows}, self.PEERS[f], f)

    def test_every_peer_and_example_compiles(self):
        for folder in ("peers", os.path.join("examples", "python")):
            for f in os.listdir(os.path.join(ROOT, folder)):
                if f.endswith(".py"):
                    path = os.path.join(ROOT, folder, f)
                    with open(path) as src:
                        compile(src.read(), path, "exec")  # a SyntaxError names the line

    def test_yolo_peer_counts_detections_that_differ(self):
        sys.path.insert(0, os.path.join(ROOT, "peers"))
        try:
            from _common import differing_detections
        finally:
            sys.path.pop(0)
        ref = {"count": np.array([2]), "dets": np.array(
            [[[0, 0, 10, 10, 0.9, 1], [5, 5, 20, 20, 0.8, 2], [0, 0, 0, 0, 0, 0]]])}

        def out(count, dets):
            return {"count": np.array(count), "dets": np.array(dets)}
        same = out([2], [[[0, 0, 10.005, 10, 0.9, 1], [5, 5, 20, 20, 0.8, 2]]])
        self.assertTrue(differing_detections(same, ref).startswith("0 detections differ"))
        moved = out([2], [[[0, 0, 10.5, 10, 0.9, 1], [5, 5, 20, 20, 0.8, 2]]])
        self.assertEqual(differing_detections(moved, ref),
                         "2 detections differ (1 only here, 1 only in the reference) of 2")
        extra = out([3], [[[0, 0, 10, 10, 0.9, 1], [5, 5, 20, 20, 0.8, 2], [1, 1, 2, 2, 0.7, 0]]])
        self.assertTrue(differing_detections(extra, ref).startswith(
            "1 detections differ (1 only here, 0"))
        fewer = out([1], [[[5, 5, 20, 20, 0.8, 2]]])
        self.assertTrue(differing_detections(fewer, ref).startswith(
            "1 detections differ (0 only here, 1"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
