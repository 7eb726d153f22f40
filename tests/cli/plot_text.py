#!/usr/bin/env python3
"""plot_text.py — read the text of gnuplot's SVG plots as a reader sees it
(test_plot_legends.sh runs it; Python's standard library only).

    plot_text.py SVG...               every text inside the canvas, no two texts
                                      overlapping (the key's among them), no two
                                      series of the key with one marker and colour
    plot_text.py --names CSV KIND SVG every variant of CSV that a plot of KIND
                                      draws named inside the canvas
    plot_text.py --key N SVG [NAME...] at most N series in the key, each NAME
                                      drawn with wider lines than any other series
    plot_text.py --png PNG...         nothing drawn on the left column or top row

The rule for a text's extent (the SVG gives no glyph metrics): estimated from
its font size and its number of characters. DejaVu Sans, the plots' font,
averages about 0.6 em a character, with an ascent of about 0.8 em and a
descent of 0.2 em; so the box runs 0.6 x size x characters along the baseline
from the anchor (start: rightwards, middle: half each way, end: leftwards),
and from 0.8 x size above the baseline to 0.2 x size below it, turned with the
text's rotate(). Two boxes overlap when they share more than 1 px in x and in
y. A series is a plot clause's group (gnuplot_plot_*) with a text: its title
in the key; its look is the marker and colour of its first point.
"""
import csv
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
CHAR_EM, ASCENT_EM, DESCENT_EM, SLACK = 0.6, 0.8, 0.2, 1.0


XLINK = "{http://www.w3.org/1999/xlink}"


def texts(path, series=None):
    """Every non-blank <text> of the SVG: (string, box, is_key), and the canvas
    size. series, a dict, gets per plot clause with a key entry its title and
    the marker and colour of its first point (None for lines or bars alone)."""
    root = ET.parse(path).getroot()
    width, height = float(root.get("width")), float(root.get("height"))
    found = []

    def walk(node, group, clause):
        if node.tag == SVG + "g":
            if node.get("transform"):
                group = node
            if (node.get("id") or "").startswith("gnuplot_plot_"):
                clause = node.get("id")
        if node.tag == SVG + "text" and group is not None:
            s = "".join(node.itertext())
            if s.strip():
                found.append((s.strip(), box(s, group), clause is not None))
                if series is not None and clause is not None:
                    series.setdefault(clause, [s.strip(), None])
            return
        if node.tag == SVG + "use" and clause is not None and series is not None:
            entry = series.get(clause)
            if entry is not None and entry[1] is None:
                entry[1] = (node.get(XLINK + "href"), re.sub(r"\s", "", node.get("color", "")))
        for child in node:
            walk(child, group, clause)

    walk(root, None, None)
    return width, height, found


def box(s, g):
    """The estimated box of text s drawn by group g: (x0, y0, x1, y1)."""
    m = re.search(r"translate\(([-0-9.]+),\s*([-0-9.]+)\)", g.get("transform"))
    x, y = float(m.group(1)), float(m.group(2))
    r = re.search(r"rotate\(([-0-9.]+)\)", g.get("transform"))
    angle = float(r.group(1)) % 360 if r else 0.0
    size = float(g.get("font-size", "11"))
    w = CHAR_EM * size * len(s.strip())
    anchor = g.get("text-anchor", "start")
    a0 = {"start": 0.0, "middle": -w / 2, "end": -w}[anchor]
    # Along the baseline a0..a0+w, across it -ascent..+descent, then turned.
    along, across = (a0, a0 + w), (-ASCENT_EM * size, DESCENT_EM * size)
    if angle in (90.0, 270.0):
        # rotate(270) turns the baseline upwards: along -> -y, across -> +x... and
        # rotate(90) downwards; both give a box of width "across" and height "along".
        s_ = -1 if angle == 270.0 else 1
        ys = sorted((s_ * along[0], s_ * along[1]))
        xs = sorted((-s_ * across[0], -s_ * across[1]))
        return (x + xs[0], y + ys[0], x + xs[1], y + ys[1])
    if angle != 0.0:
        raise SystemExit(f"{path_now}: a text turned {angle} degrees: no rule for it")
    return (x + along[0], y + across[0], x + along[1], y + across[1])


def overlap(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > SLACK and min(a[3], b[3]) - max(a[1], b[1]) > SLACK


def check_svg(path):
    global path_now
    path_now = path
    series = {}
    width, height, found = texts(path, series)
    bad = []
    for s, b, _ in found:
        if b[0] < 0 or b[1] < 0 or b[2] > width or b[3] > height:
            bad.append(f"{path}: '{s}' runs off the {width:.0f}x{height:.0f} canvas "
                       f"(estimated box {b[0]:.0f},{b[1]:.0f} to {b[2]:.0f},{b[3]:.0f})")
    for i in range(len(found)):
        for j in range(i + 1, len(found)):
            if overlap(found[i][1], found[j][1]):
                what = "key texts" if found[i][2] and found[j][2] else "texts"
                bad.append(f"{path}: {what} '{found[i][0]}' and '{found[j][0]}' overlap")
    looks = {}
    for title, look in series.values():
        if look is None:
            continue
        if look in looks and looks[look] != title:
            bad.append(f"{path}: series '{looks[look]}' and '{title}' share marker and "
                       f"colour ({look[0]} in {look[1]})")
        looks.setdefault(look, title)
    return found, bad


def key_series(path):
    """Per series of the key: its title and the widest stroke it draws with."""
    root = ET.parse(path).getroot()
    found = {}

    def walk(node, clause, width):
        if node.tag == SVG + "g" and (node.get("id") or "").startswith("gnuplot_plot_"):
            clause = node.get("id")
        if node.get("stroke-width"):
            width = float(node.get("stroke-width"))
        if clause is not None:
            entry = found.setdefault(clause, [None, 0.0])
            if node.tag == SVG + "text" and entry[0] is None:
                entry[0] = "".join(node.itertext()).strip()
            if node.tag in (SVG + "path", SVG + "use") and width is not None:
                entry[1] = max(entry[1], width)
        for child in node:
            walk(child, clause, width)

    walk(root, None, None)
    return [(t, w) for t, w in found.values() if t]


def check_key(limit, path, heavy):
    series = key_series(path)
    bad = []
    if len(series) > limit:
        bad.append(f"{path}: {len(series)} series in the key, more than {limit}")
    for name in heavy:
        mine = [w for t, w in series if t == name]
        others = [w for t, w in series if t != name and t not in heavy]
        if not mine:
            bad.append(f"{path}: no series '{name}' in the key")
        elif others and mine[0] <= max(others):
            bad.append(f"{path}: '{name}' is drawn {mine[0]} wide, not wider than the "
                       f"others ({max(others)})")
    return bad


def drawn_names(csv_path, kind):
    """The variants of the CSV that a plot of `kind` draws: a timed row (PASS or
    UNCHECKED with a median), with a workspace for the workspace plot."""
    names = []
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            try:
                timed = row["status"] in ("PASS", "UNCHECKED") and float(row["median_us"]) > 0
                if kind == "workspace":
                    timed = timed and float(row["workspace_bytes"] or 0) > 0
            except ValueError:
                timed = False
            if timed and row["variant"] not in names:
                names.append(row["variant"])
    return names


def check_names(csv_path, kind, svg_path):
    width, height, found = texts(svg_path)
    # A text names one variant (a key entry), or several: the list of the
    # others under the key, ", "-separated.
    inside = {name.strip().rstrip(",") for s, b, _ in found
              if b[0] >= 0 and b[1] >= 0 and b[2] <= width and b[3] <= height
              for name in s.split(", ")}
    names = drawn_names(csv_path, kind)
    missing = [n for n in names if n not in inside]
    return len(names), [f"{svg_path}: '{n}' is drawn but not named inside the canvas"
                        for n in missing]


def png_edges(path):
    """Ink on the image's left column or top row: text or lines cut by the edge.
    Column 0 of a PNG row decodes from column 0 of the row above alone (every
    filter's left neighbour is 0 there), so the whole image need not be."""
    data = open(path, "rb").read()
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6) or interlace:
        return [f"{path}: a PNG of depth {depth}, colour type {ctype}: not read"]
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    ink = lambda px: min(px[:3]) < 200
    bad, left = [], [0] * bpp
    # Row 0, whole (the row above it is zeros): Sub, Avg and Paeth see only the left.
    f, row = raw[0], bytearray(raw[1:1 + stride])
    for i in range(bpp, stride):
        a = row[i - bpp]
        row[i] = (row[i] + (a if f in (1, 4) else a // 2 if f == 3 else 0)) & 255
    if any(ink(row[i:i + bpp]) for i in range(0, stride, bpp)):
        bad.append(f"{path}: something is drawn on the top row (cut by the edge)")
    for y in range(h):
        f, px = raw[y * (stride + 1)], raw[y * (stride + 1) + 1:y * (stride + 1) + 1 + bpp]
        up = left
        left = [(px[i] + (up[i] if f in (2, 4) else up[i] // 2 if f == 3 else 0)) & 255
                for i in range(bpp)]
        if ink(left):
            bad.append(f"{path}: something is drawn on the left column at y={y} "
                       f"(cut by the edge)")
            break
    return bad


path_now = ""


def main(argv):
    bad = []
    if argv[:1] == ["--names"]:
        n, bad = check_names(argv[1], argv[2], argv[3])
        print(f"{argv[3]}: {n} variant names looked for")
    elif argv[:1] == ["--key"]:
        bad = check_key(int(argv[1]), argv[2], argv[3:])
    elif argv[:1] == ["--png"]:
        for p in argv[1:]:
            bad += png_edges(p)
    else:
        for p in argv:
            found, b = check_svg(p)
            bad += b
    for line in bad:
        print("FAIL:", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
