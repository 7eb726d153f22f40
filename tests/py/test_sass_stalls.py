"""test_sass_stalls.py - scripts/sass-stalls.py on Nsight Compute's source
page as ncu-split.sh exports it: the sass view (a row per SASS line) and the
cuda,sass view (CUDA lines, each followed by its SASS lines; the fixture is
cut from a real export of nms rounds_unranked, including source lines whose
unescaped quotes split them into extra cells).

  python3 tests/py/test_sass_stalls.py    (CTest: py_sass_stalls, label cpu)
"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "sass-stalls.py")
DATA = os.path.join(ROOT, "tests", "data")


def run(name):
    """(stdout lines, ALL file lines as (instructions, samples, label))."""
    with tempfile.TemporaryDirectory() as tmp:
        every = os.path.join(tmp, "all.txt")
        out = subprocess.run([sys.executable, SCRIPT, os.path.join(DATA, name), every],
                             capture_output=True, text=True, check=True).stdout
        with open(every) as f:
            rows = [(float(a), float(b), rest.strip()) for a, b, rest in
                    (line.split(None, 2) for line in f if line.strip())]
    return out.splitlines(), rows


class CudaSassView(unittest.TestCase):
    def test_cuda_lines_carry_their_samples(self):
        out, rows = run("ncu_cuda_sass.csv")
        labels = [r[2] for r in rows]
        # Only the CUDA lines, named FILE:LINE, none of the SASS lines under them.
        self.assertTrue(all(":" in l.split()[0] for l in labels), labels)
        self.assertEqual(len(rows), 10)
        by = {r[2].split()[0]: r for r in rows}
        self.assertEqual(by["one_launch.cuh:69"][:2], (21120, 1019))
        self.assertEqual(by["one_launch.cuh:63"][:2], (12672, 316))
        # A line split by its quotes keeps its numbers: the trailing cells.
        self.assertEqual(by["sm_32_intrinsics.hpp:170"][:2], (132, 0))
        self.assertTrue(out[0].lstrip().startswith("71.9%  one_launch.cuh:69  return *last;"),
                        out[0])
        self.assertIn("barrier=932", out[0])

    def test_samples_are_nonzero(self):
        _, rows = run("ncu_cuda_sass.csv")
        self.assertEqual(sum(r[1] for r in rows), 1417)


class EmptyView(unittest.TestCase):
    def test_a_header_without_lines(self):
        with open(os.path.join(DATA, "ncu_sass.csv"), newline="") as f:
            head = f.readlines()[:2]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "empty.csv")
            with open(path, "w") as f:
                f.writelines(head)
            out = subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True)
        self.assertEqual((out.returncode, out.stdout), (0, ""), out.stderr)


class SassView(unittest.TestCase):
    def test_every_sass_line_in_order(self):
        out, rows = run("ncu_sass.csv")
        with open(os.path.join(DATA, "ncu_sass.csv"), newline="") as f:
            body = list(csv.reader(f))[2:]
        self.assertEqual(len(rows), len(body))
        self.assertEqual([r[2] for r in rows], [b[1].strip() for b in body])
        self.assertEqual(sum(r[1] for r in rows), sum(float(b[2]) for b in body))
        self.assertEqual(len(out), min(40, len(body)))


if __name__ == "__main__":
    unittest.main()
