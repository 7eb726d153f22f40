#!/usr/bin/env bash
# test_py.sh — Python variants in the table (--py, --python), without a GPU:
# NumPy functions on the host. The example PASSes beside the built-ins and
# a mutated copy FAILs; a function that raises is an ERROR row with the
# exception's last line, one that returns the wrong shape a FAIL, one that
# raises NotImplementedError UNSUPPORTED, one that kills its interpreter a
# CRASH and one that hangs a TIMEOUT, each costing its own rows while the
# sweep completes; a file that cannot be imported, or no interpreter at all,
# gives ERROR rows that say why; rows and the header say where they came from.
# Needs a python with NumPy (python3, else /usr/bin/python3): skipped without
# one, unless KB_REQUIRE_NUMPY=1 (CI), where that fails.
source "$(dirname "$0")/cli_lib.sh"
py=
for p in python3 /usr/bin/python3; do
    if "$p" -c "import numpy" 2>/dev/null; then
        py=$p
        break
    fi
done
if [ -z "$py" ]; then
    echo "test_py: no python with NumPy"
    [ "${KB_REQUIRE_NUMPY:-0}" = 1 ] && exit 1
    exit 77
fi
ex=$src/examples/python/topk_numpy.py
cd "$tmp"

expect 0 "numpy_select +segments=7x5000 .*PASS" -- run topk --python "$py" --py "$ex" \
    -v numpy_select -a segments=7x5000 --max-time 0.05
expect 0 "cpu_select .*PASS.*numpy_select .*PASS" -- check topk --python "$py" --py "$ex" \
    -v cpu_select,numpy_select --sweep smoke

# A mutated copy: the k in ascending order.
sed 's/idx = idx\[np.lexsort((idx, -seg\[idx\]))\]/idx = idx[np.lexsort((idx, seg[idx]))]/' \
    "$ex" >wrong.py
differs() { ! cmp -s "$1" "$2"; }
check "the mutation applies" differs "$ex" wrong.py
expect 1 "numpy_select .*FAIL.*does not match the reference" -- run topk --python "$py" \
    --py wrong.py -v numpy_select -a segments=7x5000 --max-time 0.05

cat >faulty.py <<'PY'
import os, signal, time
import numpy as np

def raises(**_):
    raise ValueError("no values for you")

def shape(offsets, k, **_):
    s = len(offsets) - 1
    return {"topk_values": np.zeros((s, k + 1), np.float32),
            "topk_indices": np.zeros((s, k), np.int32), "counts": np.zeros(s, np.int32)}

def refuses(**_):
    raise NotImplementedError("segments longer than 64 are not done here")

def dies(**_):
    os.kill(os.getpid(), signal.SIGSEGV)

def hangs(**_):
    time.sleep(3600)

KBENCH = {
    "topk/raises": {"fn": raises, "where": "host"},
    "topk/shape": {"fn": shape, "where": "host"},
    "topk/refuses": {"fn": refuses, "where": "host"},
    "topk/dies": {"fn": dies, "where": "host"},
    "topk/hangs": {"fn": hangs, "where": "host"},
}
PY
"$k" run topk --python "$py" --py faulty.py --py "$ex" \
    -v raises,shape,refuses,dies,hangs,numpy_select,cpu_select -a segments=[7x50,3x20] \
    --max-time 0.02 --case-timeout 3 -o rows.csv >out.txt 2>&1
rc=$?
check "faulty functions: exit 1" [ $rc -eq 1 ]
row() { grep -c "^topk,$1,.*,$2," rows.csv; }
check "raises: ERROR rows with the exception's last line" \
    [ "$(grep -c '^topk,raises,.*,ERROR,ValueError: no values for you' rows.csv)" -eq 2 ]
check "wrong shape: FAIL rows" [ "$(row shape FAIL)" -eq 2 ]
expect_file rows.csv "^topk,shape,.*,FAIL,.*topk_values"
check "NotImplementedError: UNSUPPORTED rows with its text" \
    [ "$(grep -c '^topk,refuses,.*,UNSUPPORTED,segments longer than 64' rows.csv)" -eq 2 ]
check "a dead interpreter: CRASH rows" [ "$(row dies CRASH)" -eq 2 ]
check "a hang: TIMEOUT rows" [ "$(row hangs TIMEOUT)" -eq 2 ]
check "the rest of the sweep: PASS" [ "$(grep -c ',PASS,' rows.csv)" -eq 4 ]
expect_file rows.csv "^topk,numpy_select,.*,host,py:topk_numpy.py,no,no,,,,,,[0-9]*,[0-9.]*,no$"
expect_file rows.csv "^# py: faulty.py sha256 [0-9a-f]{64} /"

# A file that cannot be imported, and no interpreter: ERROR rows that say why.
echo "import no_such_module_here" >broken.py
expect 1 "broken +segments=7x50 .*ERROR.*ModuleNotFoundError: No module named 'no_such_module_here'" \
    -- run topk --python "$py" --py broken.py -v broken,cpu_select -a segments=7x50 --max-time 0.01
expect 1 "numpy_select .*ERROR.*no-such-python: cannot be run" -- run topk \
    --python no-such-python --py "$ex" -v numpy_select -a segments=7x50 --max-time 0.01
echo 'KBENCH = {"topk/cpu_select": lambda **_: {}}' >clash.py
expect 2 "variant topk/cpu_select clashes with the built-in" -- run topk --python "$py" \
    --py clash.py -v cpu_select
expect 0 "a Python variant is not graph-captured" -- run topk --python "$py" --py "$ex" \
    -v numpy_select -a segments=7x50 --mode graph
expect 0 "numpy_select .*\[host\].*py:topk_numpy.py" -- list topk --python "$py" --py "$ex"
expect 2 "no-such-file.py: No such file" -- run topk --py no-such-file.py
# The peers' files list without their libraries (each imports them lazily).
for op in preprocess topk rpn_proposals nms deform_conv2d yolo_decode; do
    expect 0 "peer:[a-z_]+ .*py:[a-z_]+\.py" -- list $op --python "$py" --peers
done
# The library rows: RAFT's select_k (ties and -0/+0 its own: nondeterministic,
# held to the exact check), CV-CUDA's nms (fast NMS: other semantics).
expect 0 "peer:raft_select_k .*\[nondeterministic\].*py:raft\.py" -- list topk --python "$py" \
    --py "$src/peers/raft.py"
expect 0 "peer:cvcuda_nms .*\[other-semantics\].*py:cvcuda\.py" -- list nms --python "$py" \
    --py "$src/peers/cvcuda.py"
# A pylibraft without pylibraft.matrix.select_k (the cu12/cu13 wheels of 25.x
# and 26.x) makes the row UNSUPPORTED with its version and why, as a missing
# pylibraft does with the install line.
mkdir -p fake/pylibraft
echo '__version__ = "26.10.0"' >fake/pylibraft/__init__.py
raft_why() {
    (cd "$src/peers" && PYTHONPATH=$1 "$py" -c 'import raft
try:
    raft.select_k_of()
except NotImplementedError as e:
    print("UNSUPPORTED", e)')
}
why=$(raft_why "$tmp/fake")
check "no matrix.select_k: UNSUPPORTED, naming the version ($why)" \
    grep -Eq "^UNSUPPORTED pylibraft 26.10.0 has no pylibraft.matrix.select_k" <<<"$why"
why=$(raft_why "$tmp/none")
check "no pylibraft: UNSUPPORTED with the install line ($why)" \
    grep -Eq "^UNSUPPORTED pylibraft is not installed \(pip install pylibraft-cu13" <<<"$why"

finish test_py
