#!/usr/bin/env python3
"""ncu-vs-kbench.py — on a GPU machine: kbench's event and kernel times of a
case against Nsight Compute's gpu__time_duration of the same launches.

    scripts/ncu-vs-kbench.py [--build build] [--samples 30] [--out DIR] \\
        'preprocess bilinear_vec cold -a n=16' 'nms rounds hot -a n=25200' ...

Each case is one string: OP VARIANT MODE and any further `kbench run`
arguments that pick the case. For each, two runs of the same samples
(at least N samples, no isolation):
  1. `kbench run --timer kernels`: the row's median event time (median_us)
     and kernel time (kernel_us: the sum of the variant's kernels a launch);
  2. the same run under `ncu --metrics gpu__time_duration.sum
     --clock-control none --cache-control none` (events only: ncu and the
     CUPTI activity API do not share a process). ncu profiles every kernel
     the run launches; the L2 flush's kernels (l2_*) are dropped, and the
     last N x kernels records are the timed samples' launches (nothing is
     launched after them), summed per launch.
The clocks are left free (boost, as kbench runs) and ncu's own cache
control is off: kbench's cold mode flushes L2 itself before each sample, so
the profiled kernel sees the same cold L2. One markdown row a case:
median event, kernel and ncu times and kernel / ncu - 1.
"""
import argparse
import csv
import io
import os
import shlex
import statistics
import subprocess
import sys


def kbench_row(path):
    """The one data row of a kbench CSV (comment lines skipped)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    if len(rows) != 1:
        raise SystemExit(f"{path}: expected one row, found {len(rows)}")
    return rows[0]


def ncu_durations_us(text):
    """(kernel name, duration in us) per profiled kernel, in launch order,
    from `ncu --csv --page raw` output mixed with the program's own."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if not rows or "gpu__time_duration.sum" not in rows[0]:
        return []
    head = rows[0]
    col, name = head.index("gpu__time_duration.sum"), head.index("Kernel Name")
    scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
             "second": 1e6, "s": 1e6}
    unit, out = 1.0, []
    for r in rows[1:]:
        if len(r) <= col:
            continue
        v = r[col].replace(",", "")
        if r[col] in scale:  # the units row
            unit = scale[r[col]]
            continue
        try:
            out.append((r[name], float(v) * unit))
        except ValueError:
            continue
    return out


def per_launch(durations, kernels, samples):
    """The sums of the last samples x kernels records, kernels at a time."""
    ds = [d for n, d in durations if not n.startswith("l2_")]
    k = max(1, int(round(kernels)))
    take = ds[-samples * k:] if len(ds) >= samples * k else ds[len(ds) % k:]
    return [sum(take[i:i + k]) for i in range(0, len(take) - k + 1, k)]


def run_case(args, spec, i):
    words = shlex.split(spec)
    if len(words) < 3:
        raise SystemExit(f"case '{spec}': want OP VARIANT MODE [kbench run args]")
    op, variant, mode, rest = words[0], words[1], words[2], words[3:]
    kb = os.path.join(args.build, "kbench")
    # At least N samples and about a second of them (no stop on noise): the
    # kernel-time run keeps many, the profiled one (~20-50 ms a sample under
    # ncu) about N, of which the last N are compared.
    base = [kb, "run", op, "-v", variant, "--mode", mode, "--min-samples", str(args.samples),
            "--max-noise", "0", "--max-time", "1", "--no-isolate", "-q", "--overwrite"] + rest
    kcsv = os.path.join(args.out, f"case{i}-kernels.csv")
    subprocess.run(base + ["--timer", "kernels", "-o", kcsv], check=True)
    row = kbench_row(kcsv)
    ncsv = os.path.join(args.out, f"case{i}-ncu-run.csv")
    prof = subprocess.run(["ncu", "--csv", "--page", "raw", "--metrics", "gpu__time_duration.sum",
                           "--clock-control", "none", "--cache-control", "none"] + base +
                          ["-o", ncsv], capture_output=True, text=True)
    with open(os.path.join(args.out, f"case{i}-ncu.txt"), "w") as f:
        f.write(prof.stdout + prof.stderr)
    kernels = float(row.get("kernels") or 1)
    launches = per_launch(ncu_durations_us(prof.stdout), kernels, args.samples)
    event = float(row["median_us"])
    kernel = float(row["kernel_us"]) if row.get("kernel_us") else float("nan")
    ncu = statistics.median(launches) if launches else float("nan")
    return (f"| {op} {variant} {' '.join(rest)} | {mode} | {event:.2f} | {kernel:.2f} | "
            f"{ncu:.2f} | {len(launches)} | {100 * (kernel / ncu - 1):+.1f}% | "
            f"{100 * (event / ncu - 1):+.1f}% |")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build")
    p.add_argument("--samples", type=int, default=30)
    p.add_argument("--out", default=".")
    p.add_argument("cases", nargs="+")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print("| case | mode | event us | kernel us | ncu us | ncu launches | kernel vs ncu | "
          "event vs ncu |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for i, spec in enumerate(args.cases):
        try:
            print(run_case(args, spec, i), flush=True)
        except (subprocess.CalledProcessError, SystemExit, KeyError, ValueError) as e:
            print(f"| {spec} | failed: {e} | | | | | | |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
