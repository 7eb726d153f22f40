"""sass-stalls.py CSV — the SASS lines with the most warp-stall samples, from
`ncu --import R --page source --print-source sass --csv`, with each line's
three largest stall reasons (ncu-split.sh)."""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if any("Source" in c for c in r))
cols, body = rows[head], rows[head + 1:]


def col(name):
    return next((i for i, c in enumerate(cols) if c.startswith(name)), None)


def num(r, i):
    try:
        return float((r[i] or "0").replace(",", "")) if i is not None and i < len(r) else 0.0
    except ValueError:
        return 0.0


src, samp = col("Source"), col("Warp Stall Sampling (All")
reasons = [i for i, c in enumerate(cols) if c.startswith("stall_") and "Not Issued" not in c]
total = sum(num(r, samp) for r in body) or 1
for r in sorted(body, key=lambda r: num(r, samp), reverse=True)[:40]:
    top = sorted(reasons, key=lambda i: num(r, i), reverse=True)[:3]
    why = " ".join(f"{cols[i][6:]}={num(r, i):.0f}" for i in top if num(r, i) > 0)
    print(f"{100 * num(r, samp) / total:5.1f}%  {r[src]:<60} {why}")

# With a second argument: every SASS line in address order with its executed
# instructions and stall samples, to find where a kernel's instructions go.
if len(sys.argv) > 2:
    ex = col("Instructions Executed")
    with open(sys.argv[2], "w") as f:
        for r in body:
            f.write(f"{num(r, ex):12.0f} {num(r, samp):7.0f}  {r[src]}\n")
