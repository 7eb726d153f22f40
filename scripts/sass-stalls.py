"""sass-stalls.py CSV [ALL] — the source lines with the most warp-stall
samples, each with its three largest stall reasons (ncu-split.sh), from

  ncu --import R --page source --print-source sass --csv        SASS lines
  ncu --import R --page source --print-source cuda,sass --csv   CUDA lines

ncu correlates its metrics with the sass and cuda,sass views only (its
plain cuda view lists every line with zero samples). In the cuda,sass view
each CUDA line carries the sums of the SASS lines under it; this reads those
lines, as FILE:LINE, and skips the SASS lines between them (a SASS line
inlined from several CUDA lines counts in each, so their shares of all
samples add up to more than 100%). With ALL, every
line in the view's order with its executed instructions and samples goes to
that file, to find where a kernel's instructions go."""
import csv
import os
import sys


def num(cell):
    try:
        return float((cell or "0").replace(",", ""))
    except ValueError:
        return 0.0


def lines_of(rows):
    """(label, {column: value}) per source line, and the metric columns."""
    out, metrics, cuda, path = [], None, False, ""
    for r in rows:
        if not r or r[0] in ("Kernel Name", "Function Name"):
            continue
        if r[0] == "File Path" and len(r) > 1:
            path = os.path.basename(r[1])
            continue
        if "Source" in r and ("Address" in r or "Line No" in r):
            # cuda,sass: Line No, Source, Address, Source (SASS), metrics;
            # sass: Address, Source, metrics.
            cuda = r[0] == "Line No"
            metrics = r[r.index("Source", 2 if cuda else 0) + 1:]
            continue
        if metrics is None:
            continue
        # A source line with an unescaped quote splits into more cells: the
        # metrics are always the row's last cells.
        values = dict(zip(metrics, r[len(r) - len(metrics):]))
        if cuda:  # CUDA lines have a number, the SASS lines under them none
            if r[0].strip().isdigit():
                text = ",".join(r[1:len(r) - len(metrics) - 2]).strip()
                out.append(("%s:%s  %s" % (path, r[0], text), values))
        else:
            out.append((",".join(r[1:len(r) - len(metrics)]), values))
    if metrics is None:
        raise SystemExit("%s: no source-page header (Address/Line No, Source) found" % sys.argv[1])
    return out, metrics


rows = list(csv.reader(open(sys.argv[1], newline="")))
lines, metrics = lines_of(rows)
samp = next(c for c in metrics if c.startswith("Warp Stall Sampling (All"))
reasons = [c for c in metrics if c.startswith("stall_") and "Not Issued" not in c]
total = sum(num(v.get(samp)) for _, v in lines) or 1
if len(sys.argv) > 2:
    ex = "Instructions Executed"
    with open(sys.argv[2], "w") as f:
        for label, v in lines:
            f.write(f"{num(v.get(ex)):12.0f} {num(v.get(samp)):7.0f}  {label}\n")
try:
    for label, v in sorted(lines, key=lambda x: num(x[1].get(samp)), reverse=True)[:40]:
        top = sorted(reasons, key=lambda c: num(v.get(c)), reverse=True)[:3]
        why = " ".join(f"{c[6:]}={num(v.get(c)):.0f}" for c in top if num(v.get(c)) > 0)
        print(f"{100 * num(v.get(samp)) / total:5.1f}%  {label[:100]:<60} {why}")
except BrokenPipeError:  # a reader (head) that took enough
    sys.stderr.close()
