"""peerlib.py — what every peer script shares: kbench's CSV schema, its
statistics and stopping rule, CUDA-event timing with the L2 flushed before
each sample (kbench's cold mode), and the cases kbench dumped.

Standard library only at import time (torch and numpy are imported where they
are used), so tests/cli/test_peers_csv.sh exercises the CSV writer and the
statistics on a machine without them.

The rules mirror harness/: stats.c (type-7 percentiles, noise = relative
standard deviation), kb_should_stop (min samples, max noise, max time, 4x the
time for fewer than min samples), measure_cold.c and l2_flush.h (the default
flush, write-read, of twice the L2 before each sample, outside the event pair), out_csv.c (columns,
number formats, RFC 4180 quoting) and row.c (the '#' metadata lines).
"""
import csv
import datetime
import io
import math
import os
import re
import socket
import subprocess
import time

# out_csv.c's kb_csv_columns, in order.
COLUMNS = [
    "op", "variant", "params", "mode", "status", "reason", "samples", "median_us", "min_us",
    "max_us", "p10_us", "p90_us", "mean_us", "stddev_us", "noise_pct", "bytes", "flops", "gbps",
    "gflops", "pct_peak_bw", "pct_peak_flops", "workspace_bytes", "rel_l2", "max_abs", "max_rel",
    "tolerance", "deterministic", "throttled", "note", "dropped", "where",
]


class StopRule:
    """kbench run's --min-samples, --max-noise (a fraction here), --max-time."""

    def __init__(self, min_samples=20, max_noise=0.01, max_time_s=2.0, max_samples=20000):
        self.min_samples, self.max_noise = min_samples, max_noise
        self.max_time_s, self.max_samples = max_time_s, max_samples

    def done(self, samples, elapsed_s):
        n = len(samples)
        if n >= self.max_samples:
            return True
        if n >= self.min_samples and elapsed_s >= self.max_time_s:
            return True
        if n < self.min_samples:
            return elapsed_s >= 4 * self.max_time_s and n >= 1
        mean = sum(samples) / n
        ss = sum((x - mean) ** 2 for x in samples)
        noise = math.sqrt(ss / (n - 1)) / mean if n > 1 and mean > 0 else 0
        return noise <= self.max_noise


def _percentile(s, p):
    pos = p * (len(s) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


def stats(samples_s):
    """kb_stats_compute: a dict of seconds (n, median, min, max, p10, p90,
    mean, stddev) and noise (a fraction)."""
    s = sorted(samples_s)
    n = len(s)
    if not n:
        return dict(n=0, median=0, min=0, max=0, p10=0, p90=0, mean=0, stddev=0, noise=0)
    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    return dict(n=n, median=_percentile(s, 0.5), min=s[0], max=s[-1], p10=_percentile(s, 0.1),
                p90=_percentile(s, 0.9), mean=mean, stddev=sd,
                noise=sd / mean if mean > 0 else 0.0)


def _sci(v, digits):
    return "" if v is None else "%.*e" % (digits, v)


def format_row(row):
    """One CSV line (with its newline) in out_csv.c's formats. row: a dict
    with op, variant, params, status, where ("device" or "host") and, when timed, 'stats' (stats()),
    bytes, flops, peaks; when checked, 'check' (kbench verify's JSON)."""
    st = row.get("stats") or stats([])
    bytes_, flops = row.get("bytes") or 0, row.get("flops") or 0
    t = st["median"]
    gbps = bytes_ / t * 1e-9 if t > 0 else 0.0
    gflops = flops / t * 1e-9 if t > 0 else 0.0
    copy, sgemm = row.get("peaks", (0, 0))
    chk = row.get("check")
    fields = [
        row["op"], row["variant"], row["params"], row.get("mode", "cold"), row["status"],
        row.get("reason", ""), "%d" % st["n"],
        "%.4f" % (st["median"] * 1e6), "%.4f" % (st["min"] * 1e6), "%.4f" % (st["max"] * 1e6),
        "%.4f" % (st["p10"] * 1e6), "%.4f" % (st["p90"] * 1e6), "%.4f" % (st["mean"] * 1e6),
        "%.4f" % (st["stddev"] * 1e6), "%.3f" % (st["noise"] * 100),
        "%.0f" % bytes_, "%.0f" % flops, "%.3f" % gbps, "%.3f" % gflops,
        "%.2f" % (100 * gbps / copy if copy > 0 else 0),
        "%.2f" % (100 * gflops / sgemm if sgemm > 0 else 0),
        "%d" % row.get("workspace_bytes", 0),
    ]
    if chk:
        fields += [_sci(chk.get("rel_l2") or 0, 3), _sci(chk.get("max_abs") or 0, 3),
                   _sci(chk.get("max_rel") or 0, 3), _sci(chk.get("tolerance") or 0, 1)]
    else:
        fields += ["", "", "", ""]
    det = row.get("deterministic")
    # dropped: a peer is judged as the op's own semantics, so it counts none
    fields += ["" if det is None else ("yes" if det else "no"), "0", row.get("note", ""), ""]
    fields += [row.get("where", "device")]
    out = io.StringIO()
    # out_csv.c quotes a field only when it holds a comma, quote or newline,
    # and writes a newline inside a field as a space.
    csv.writer(out, lineterminator="\n").writerow(
        [f.replace("\n", " ") if isinstance(f, str) else f for f in fields])
    return out.getvalue()


class CsvOut:
    """A peers CSV: the '#' lines, the header, then rows flushed as they come."""

    def __init__(self, path, meta_lines):
        self.f = open(path, "w")
        for line in meta_lines:
            self.f.write("# " + line + "\n")
        self.f.write(",".join(COLUMNS) + "\n")
        self.f.flush()

    def row(self, row):
        self.f.write(format_row(row))
        self.f.flush()

    def close(self):
        self.f.close()


def meta_lines(kbench_csv, command, versions):
    """The '#' lines of a peers file: kbench's first line (its commit) with
    this run's time and host, this command, kbench's gpu line (device,
    clocks, measured peaks) taken from the CSV its dump run wrote, and the
    peers' library versions."""
    commit, gpu = "unknown", None
    if kbench_csv and os.path.exists(kbench_csv):
        with open(kbench_csv) as f:
            for line in f:
                if not line.startswith("#"):
                    break
                s = line.lstrip("# ").rstrip("\n")
                m = re.match(r"kbench (\S+) \|", s)
                if m:
                    commit = m.group(1)
                elif s.startswith("gpu: "):
                    gpu = s
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = ["kbench %s | %s | host %s" % (commit, now, socket.gethostname()),
             "command: " + command]
    if gpu:
        lines.append(gpu)
    lines.append("peers: " + versions)
    return lines


def peaks_of(lines):
    """(copy GB/s, sgemm GFLOP/s) from a 'gpu: ... | peaks: ...' line; zeros if none."""
    for line in lines:
        m = re.search(r"peaks: copy ([0-9.]+) GB/s, sgemm ([0-9.]+)", line)
        if m:
            return float(m.group(1)), float(m.group(2))
    return 0.0, 0.0


# ---- cases kbench dumped (README "Dumped tensors") ----

def dumped_cases(dump_dir):
    """[(k, folder, params)] of DIR/case<k>/case.txt, in sweep order."""
    out = []
    for name in os.listdir(dump_dir):
        m = re.fullmatch(r"case(\d+)", name)
        path = os.path.join(dump_dir, name, "case.txt")
        if m and os.path.exists(path):
            with open(path) as f:
                out.append((int(m.group(1)), os.path.join(dump_dir, name), f.readline().strip()))
    return sorted(out)


def parse_params(params):
    """'n=16 in_h=1080 ...' -> dict of strings (a value runs to the next ' name=')."""
    out = {}
    for m in re.finditer(r"(\w+)=(.*?)(?= \w+=|$)", params):
        out[m.group(1)] = m.group(2)
    return out


def verify(kbench, op, case_dir, name, precision=None):
    """kbench verify: the op's own comparison of CASEDIR/NAME.<out>.npy against
    the dumped reference. Returns its JSON as a dict (status PASS/FAIL), or
    {'status': 'ERROR', 'note': ...} when kbench could not judge."""
    import json
    cmd = [kbench, "verify", op, case_dir, name] + (["--precision", precision] if precision else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode in (0, 1) and p.stdout.strip():
        return json.loads(p.stdout.strip().splitlines()[-1])
    return {"status": "ERROR", "note": (p.stderr.strip() or p.stdout.strip())[-300:]}


# ---- timing (torch) ----

class ColdTimer:
    """kbench's cold mode for a callable that enqueues GPU work on the current
    stream: before each sample kbench's default flush, `write-read` (a memset
    of twice the L2, then a reduction that reads it back, so inputs are not
    timed from cache and no dirty line is left to write back inside the timed
    region), then an event pair around one call."""

    def __init__(self, rule, warmup_s=0.05):
        import torch
        self.torch, self.rule, self.warmup_s = torch, rule, warmup_s
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = getattr(props, "L2_cache_size", 0) or 50 * 1024 * 1024
        self.flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)

    def one(self, fn, n):
        self.flush.fill_(n & 0xFF)
        self.flush.view(self.torch.int32).sum()
        self.start.record()
        fn()
        self.stop.record()
        self.stop.synchronize()
        return self.start.elapsed_time(self.stop) * 1e-3

    def measure(self, fn):
        """Samples in seconds until the stop rule says so."""
        t0, n = time.perf_counter(), 0
        while n < 2 or (time.perf_counter() - t0 < self.warmup_s and n < 1000):
            self.one(fn, n)
            n += 1
        samples, t0 = [], time.perf_counter()
        while not self.rule.done(samples, time.perf_counter() - t0):
            samples.append(self.one(fn, len(samples)))
        return samples


class CpuTimer:
    """Wall clock around one call of a CPU function (OpenCV): the same stop
    rule; no flush (the caches of the host are not kbench's L2)."""

    def __init__(self, rule, warmup_s=0.05):
        self.rule, self.warmup_s = rule, warmup_s

    def measure(self, fn):
        t0, n = time.perf_counter(), 0
        while n < 2 or (time.perf_counter() - t0 < self.warmup_s and n < 1000):
            fn()
            n += 1
        samples, t0 = [], time.perf_counter()
        while not self.rule.done(samples, time.perf_counter() - t0):
            a = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - a)
        return samples
