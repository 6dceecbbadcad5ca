#!/usr/bin/env python3
"""test_figure.py — qkv's figures (--format svg, pdf, png) from outside.

The expected numbers are computed here from the problem's inputs (Q, K, V, read
from qkv's JSON report, which prints the inputs as given), with Python's own
arithmetic; the expected colours from the published ramps (matplotlib's viridis,
ColorBrewer's PuOr) and the step rule docs/teaching.md states. The SVG is parsed as
XML, the PNG decoded here with zlib and struct (no imaging library), the PDF read
for its page count. Usage: test_figure.py PATH/TO/qkv. Prints TAP."""

import atexit
import json
import math
import os
import pty
import struct
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

QKV = sys.argv[1]
SVG_NS = "{http://www.w3.org/2000/svg}"

# viridis at k/5 (matplotlib), projector viridis at 0, .2, .625, .8, 1.
VIRIDIS = ["#440154", "#414487", "#2a788e", "#22a884", "#7ad151", "#fde725"]
VIRIDIS_PROJECTOR = ["#440154", "#414487", "#27ad81", "#7ad151", "#fde725"]
# ColorBrewer PuOr, 7 classes.
PUOR = ["#542788", "#998ec3", "#d8daeb", "#f7f7f7", "#fee0b6", "#f1a340", "#b35806"]
MASKED = "#585858"
FRAME = "#ff5f00"

count = 0
failed = 0
tmp = tempfile.mkdtemp(prefix="qkv-figure-")
# The folder goes at exit, whatever happened: the tests leave no file behind.
atexit.register(shutil.rmtree, tmp, ignore_errors=True)


def check(condition, description, detail=""):
    global count, failed
    count += 1
    if condition:
        print(f"ok {count} - {description}")
    else:
        failed += 1
        print(f"not ok {count} - {description}" + (f" ({detail})" if detail else ""))


def run(*args, stdout=None):
    """Runs qkv; returns (status, stdout bytes, stderr text)."""
    p = subprocess.run([QKV, *args], stdin=subprocess.DEVNULL,
                       stdout=stdout if stdout is not None else subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def problem(*args):
    status, out, err = run(*args, "--format", "json")
    assert status == 0, err
    return json.loads(out)


# ---- the maths, independently -----------------------------------------------------

def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def transpose(a):
    return [list(r) for r in zip(*a)]


def masked(d, i, j):
    hidden = d["mask"] == "causal" and j > i
    return hidden or (j in [d["tokens"].index(t) for t in d.get("padding", [])])


def attention(d, column_softmax=False):
    q, k, v = d["Q"], d["K"], d["V"]
    n, d_k = len(q), len(q[0])
    tau = d["temperature"]
    divisor = tau * (math.sqrt(d_k) if d["scale"] == "sqrt_dk" else 1.0)
    scores = matmul(q, transpose(k))
    scaled = [[s / divisor for s in row] for row in scores]
    weights = [[0.0] * n for _ in range(n)]
    if column_softmax:
        for j in range(n):
            top = max(scaled[i][j] for i in range(n))
            e = [math.exp(scaled[i][j] - top) for i in range(n)]
            for i in range(n):
                weights[i][j] = e[i] / sum(e)
    else:
        for i in range(n):
            live = [j for j in range(n) if not masked(d, i, j)]
            top = max(scaled[i][j] for j in live)
            total = sum(math.exp(scaled[i][j] - top) for j in live)
            for j in live:
                weights[i][j] = math.exp(scaled[i][j] - top) / total
    return scores, scaled, weights, matmul(weights, v)


def shown(x, decimals):
    text = f"{x:.{decimals}f}"
    return "0." + "0" * decimals if text == "-0." + "0" * decimals else text


def weight_colour(w, ramp):
    s = round(w, 2)
    return ramp[0] if s <= 0 else ramp[-1] if s >= 1 else ramp[min(int(s * len(ramp)), len(ramp) - 1)]


def signed_colour(x, limit, ramp):
    side = len(ramp) // 2
    t = max(-1.0, min(1.0, x / limit))
    level = min(side, int(abs(t) * (2 * side + 1) / 2 + 0.5))
    return ramp[side - level if t < 0 else side + level]


def luminance(hexcolour):
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(hexcolour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def text_on(hexcolour):
    lum = luminance(hexcolour)
    on_white = 1.05 / (lum + 0.05)
    on_black = (lum + 0.05) / 0.05
    return "#ffffff" if on_white > on_black else "#000000"


# ---- the files -----------------------------------------------------------------------

def svg_of(*args):
    status, out, err = run(*args, "--format", "svg")
    assert status == 0, err
    return ET.fromstring(out)


def cells(root):
    return [r for r in root.iter(SVG_NS + "rect") if r.get("id", "").rsplit("-", 1)[0] == "cell"]


def texts(root, cls):
    return [t.text for t in root.iter(SVG_NS + "text") if t.get("id", "").rsplit("-", 1)[0] == cls]


def value_inks(root):
    return [t.get("fill") for t in root.iter(SVG_NS + "text") if t.get("id", "").rsplit("-", 1)[0] == "value"]


def png_pixels(data):
    """Decodes an 8-bit RGB or RGBA PNG: (width, height, rows of (r, g, b))."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour_type in (2, 6), (depth, colour_type)
            channels = 3 if colour_type == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pred) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        prev = line
    return width, height, rows


def hexrgb(pixel):
    return "#%02x%02x%02x" % pixel


# ---- the checks -----------------------------------------------------------------------

we = problem()
scores, scaled, weights, output = attention(we)
n = len(we["tokens"])

# Weights of the worked example, SVG.
root = svg_of("--stage", "3")
rects = cells(root)
check(len(rects) == n * n, "weights SVG: one filled rectangle per cell", f"{len(rects)} cells")
want = [weight_colour(weights[i][j], VIRIDIS) for i in range(n) for j in range(n)]
got = [r.get("fill") for r in rects]
check(got == want, "weights SVG: each cell's fill is viridis at its shown value", f"{got} != {want}")
want_text = [shown(weights[i][j], 2) for i in range(n) for j in range(n)]
check(texts(root, "value") == want_text, "weights SVG: the numbers are the weights at 2 decimals",
      f"{texts(root, 'value')}")
check(value_inks(root) == [text_on(c) for c in want], "weights SVG: each number black or white by WCAG contrast")
check(texts(root, "label")[:n] == we["tokens"] and texts(root, "label")[n:2 * n] == we["tokens"],
      "weights SVG: token labels on both axes")
check(any("A = softmax" in (t or "") for t in texts(root, "formula")), "weights SVG: the stage's formula")
ticks = texts(root, "tick")
check(ticks == ["0.00", "0.17", "0.33", "0.50", "0.67", "0.83", "1.00"], "weights SVG: the colour bar's ticks", f"{ticks}")
bar = [r.get("fill") for r in root.iter(SVG_NS + "rect") if r.get("id", "").rsplit("-", 1)[0] == "bar"]
check(bar == VIRIDIS, "weights SVG: the colour bar is the viridis ramp")

facts = texts(root, "facts")[0]
check(facts == f"3 tokens, d_k = 2, d_v = 2; divisor \u221ad_k = \u221a2 = {math.sqrt(2):.4f}; no mask",
      "weights SVG: the facts line (sizes, divisor, mask)", facts)

# --decimals 4.
root = svg_of("--stage", "3", "--decimals", "4")
check(texts(root, "value") == [shown(weights[i][j], 4) for i in range(n) for j in range(n)],
      "--decimals 4: the numbers at 4 decimals")

# Scores and scaled scores: PuOr, the ends ±max |value|.
for stage, matrix in (("1", scores), ("2", scaled)):
    root = svg_of("--stage", stage, "--decimals", "3")
    limit = max(abs(x) for row in matrix for x in row) or 1.0
    want = [signed_colour(matrix[i][j], limit, PUOR) for i in range(n) for j in range(n)]
    check([r.get("fill") for r in cells(root)] == want, f"stage {stage} SVG: fills on the PuOr ramp")
    check(texts(root, "value") == [shown(matrix[i][j], 3) for i in range(n) for j in range(n)],
          f"stage {stage} SVG: the numbers at 3 decimals")

# A causal mask: masked grey and a dash.
dm = problem("--mask", "causal")
_, _, wm, _ = attention(dm)
root = svg_of("--stage", "3", "--mask", "causal")
fills = [r.get("fill") for r in cells(root)]
want = [MASKED if j > i else weight_colour(wm[i][j], VIRIDIS) for i in range(n) for j in range(n)]
check(fills == want, "causal mask: masked cells are the masked grey", f"{fills}")
check(texts(root, "value") == ["\u2014" if j > i else shown(wm[i][j], 2) for i in range(n) for j in range(n)],
      "causal mask: masked cells read \u2014")

# The selected cell.
root = svg_of("--stage", "3", "--cell", "2,3")
frames = [r for r in root.iter(SVG_NS + "rect") if r.get("stroke") == FRAME]
cell = cells(root)[1 * n + 2]
check(len(frames) == 1 and abs(float(frames[0].get("x")) - float(cell.get("x"))) < 2
      and abs(float(frames[0].get("y")) - float(cell.get("y"))) < 2,
      "--cell 2,3: one orange-red frame, on that cell")

# Wrong way: softmax down columns, with the sums.
_, _, wc, _ = attention(we, column_softmax=True)
root = svg_of("--stage", "3", "--wrong", "column-softmax", "--decimals", "3")
sums = texts(root, "sum")
want = []


def sum_text(values, decimals):
    """The sum at `decimals` places, with ≈ in front when the values, each rounded
    to `decimals` places, add up to something else."""
    scale = 10 ** decimals
    adds_up = sum(math.floor(v * scale + 0.5) for v in values) == math.floor(sum(values) * scale + 0.5)
    return ("" if adds_up else "\u2248") + shown(sum(values), decimals)


for i in range(n):
    want += [sum_text(wc[i], 3), sum_text([wc[j][i] for j in range(n)], 3)]
check(sums == want, "wrong way: each row's and column's sum", f"{sums} != {want}")
reds = [t.get("fill") for t in root.iter(SVG_NS + "text") if t.get("id", "").rsplit("-", 1)[0] == "sum"]
check(reds[0] != reds[1], "wrong way: a sum that is not 1 is drawn in another colour than one that is")

# Stage 5: A, V and O side by side.
root = svg_of("--stage", "5")
d_v = len(we["V"][0])
check(len(cells(root)) == n * n + 2 * n * d_v, "stage 5 SVG: A, V and O, one rectangle per cell")
vals = texts(root, "value")
check(vals[n * n + n * d_v:] == [shown(output[i][c], 2) for i in range(n) for c in range(d_v)],
      "stage 5 SVG: O's numbers are A V")

# Stage 0: the projections of a problem given as X and W's.
root_dir = os.environ.get("QKV_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))
projected = os.path.join(root_dir, "samples", "previous-token.json")
status, out, err = run(projected, "--format", "json")
dp = json.loads(out)
root = svg_of(projected, "--stage", "0", "--decimals", "3")
want = []
for name in ("Q", "K", "V"):
    want += [shown(x, 3) for row in dp[name] for x in row]
check(texts(root, "value") == want, "stage 0 SVG: Q, K and V as projected")

# Palettes and backgrounds.
root = svg_of("--stage", "3", "--palette", "projector")
check([r.get("fill") for r in cells(root)] == [weight_colour(weights[i][j], VIRIDIS_PROJECTOR)
                                              for i in range(n) for j in range(n)],
      "--palette projector: the projector ramp")
root = svg_of("--stage", "3", "--palette", "mono", "--background", "dark")
bg = [r.get("fill") for r in root.iter(SVG_NS + "rect") if r.get("id", "").rsplit("-", 1)[0] == "background"]
check(bg == ["#121212"] and all(r.get("fill") == "#121212" for r in cells(root)),
      "--palette mono --background dark: cells on the dark background")
check(all(i == "#eeeeee" for i in value_inks(root)), "dark background: light numbers")

# Every text off the cells reads at 4.5:1 on the background, light and dark.
def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


for background, colour in (("light", "#ffffff"), ("dark", "#121212")):
    root = svg_of("--stage", "3", "--wrong", "column-softmax", "--background", background)
    off = [t for t in root.iter(SVG_NS + "text") if t.get("id", "").rsplit("-", 1)[0] != "value"]
    low = [(t.text, t.get("fill")) for t in off if contrast(t.get("fill"), colour) < 4.5]
    check(len(off) > 10 and not low, f"{background} background: titles, labels, ticks and sums at 4.5:1", f"{low}")

# PNG: the pixel at each cell's centre has the cell's colour (same size as the SVG).
size = "900x500"
root = svg_of("--stage", "3", "--size", size, "--cell", "1,1")
png = os.path.join(tmp, "w.png")
status, _, err = run("--stage", "3", "--size", size, "--cell", "1,1", "--format", "png", "--output", png)
check(status == 0 and err == "", "PNG written with --output", err)
width, height, rows = png_pixels(open(png, "rb").read())
check((width, height) == (900, 500), "PNG: the size asked for", f"{width}x{height}")
bad = []
for r, i in zip(cells(root), range(n * n)):
    x = float(r.get("x")) + float(r.get("width")) / 2
    y = float(r.get("y")) + float(r.get("height")) * 0.15   # above the number
    pixel = hexrgb(rows[int(y)][int(x)])
    if pixel != weight_colour(weights[i // n][i % n], VIRIDIS):
        bad.append((i, pixel))
check(not bad, "PNG: each cell's colour at its centre line is viridis at its value", f"{bad}")
r = cells(root)[0]
edge = hexrgb(rows[int(float(r.get("y")) + 1)][int(float(r.get("x")) + float(r.get("width")) / 2)])
check(edge == FRAME, "PNG: the selected cell's frame is orange-red", edge)

# Nothing runs off the figure: the PNG's outermost pixels are all background.
edges_bad = []
for stage in ("1", "3", "4", "5"):
    path = os.path.join(tmp, f"edge{stage}.png")
    run("--stage", stage, "--cell", "3,1", "--wrong", "column-softmax", "--format", "png", "--output", path)
    w_, h_, px = png_pixels(open(path, "rb").read())
    border = px[0] + px[-1] + [row[0] for row in px] + [row[-1] for row in px]
    if any(p != (255, 255, 255) for p in border):
        edges_bad.append(stage)
check(not edges_bad, "every stage's PNG keeps a clear margin on all four sides", f"stages {edges_bad}")

# 16 tokens, scaling off, d_k 1024: the weights saturate, and the PNG agrees with the SVG.
args = ["--random", "--tokens", "16", "--dk", "1024", "--no-scale", "--stage", "3", "--size", "1600x1000"]
dr = problem(*args[:-4])
_, _, wr, _ = attention(dr)
root = svg_of(*args)
check(texts(root, "value") == [shown(wr[i][j], 2) for i in range(16) for j in range(16)],
      "16 tokens, d_k 1024, no scaling: the numbers")
facts = texts(root, "facts")[0]
check(facts == "16 tokens, d_k = 1024, d_v = 1024, seed 1; scaling off (divisor 1); no mask",
      "16 tokens: the facts line says scaling is off", facts)
status, data, err = run(*args, "--format", "png", "--output", os.path.join(tmp, "r.png"))
width, height, rows = png_pixels(open(os.path.join(tmp, "r.png"), "rb").read())
bad = 0
for r, i in zip(cells(root), range(256)):
    x = float(r.get("x")) + float(r.get("width")) / 2
    y = float(r.get("y")) + float(r.get("height")) * 0.15
    bad += hexrgb(rows[int(y)][int(x)]) != weight_colour(wr[i // 16][i % 16], VIRIDIS)
check(bad == 0, "16 tokens: every PNG cell has its colour", f"{bad} wrong")
check(sum(1 for row in wr if max(row) > 0.95) >= 8, "16 tokens unscaled: most rows put almost all weight on one key")

# An SVG renderer of its own (ImageMagick, where installed) draws each cell of the
# 16-token SVG in its colour.
# A "convert" that is not ImageMagick (a stand-in some machines put on the path)
# does not count: its -version names ImageMagick or it is skipped.
import shutil as _shutil
def _imagemagick():
    if _shutil.which("convert") is None:
        return False
    p = subprocess.run(["convert", "-version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return p.returncode == 0 and b"ImageMagick" in p.stdout.split(b"\n", 1)[0]
if not _imagemagick():
    check(True, "the SVG through ImageMagick # SKIP ImageMagick is not installed (Debian: imagemagick)")
else:
    svg_path, png_path = os.path.join(tmp, "r16.svg"), os.path.join(tmp, "r16-im.png")
    open(svg_path, "wb").write(ET.tostring(root))
    p = subprocess.run(["convert", "-density", "72", svg_path, "-alpha", "off", "-depth", "8",
                        "-define", "png:color-type=2", png_path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        check(False, "the SVG through ImageMagick", p.stderr.decode(errors="replace")[:300])
    else:
        width, height, rows = png_pixels(open(png_path, "rb").read())
        ratio = width / 1600   # its idea of a point's pixels
        bad = 0
        for r, i in zip(cells(root), range(256)):
            x = (float(r.get("x")) + float(r.get("width")) / 2) * ratio
            y = (float(r.get("y")) + float(r.get("height")) * 0.15) * ratio
            bad += hexrgb(rows[int(y)][int(x)]) != weight_colour(wr[i // 16][i % 16], VIRIDIS)
        check(abs(height / width - 1000 / 1600) < 0.01 and bad == 0,
              "the SVG through ImageMagick: the shape, and every cell in its colour", f"{width}x{height}, {bad} wrong")

# PDF: one page, text kept as text (a font, not outlines).
pdf = os.path.join(tmp, "w.pdf")
for stage in ("1", "2", "3", "5"):
    status, _, err = run("--stage", stage, "--format", "pdf", "--output", pdf)
    data = open(pdf, "rb").read()
    pages = data.count(b"/Type /Page") - data.count(b"/Type /Pages")
    check(status == 0 and data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and pages == 1,
          f"stage {stage} PDF: one page", f"status {status}, {pages} pages, {err}")
check(b"/FontFile" in data and b"/ToUnicode" in data, "PDF: the text is text (an embedded font with its Unicode map)")

# Refusals: one line, exit 2, nothing written.
for desc, extra in (("--size 10x10", ["--size", "10x10"]), ("--size abc", ["--size", "abc"]),
                    ("--size 100x", ["--size", "100x"]), ("--size 9000x100", ["--size", "9000x100"])):
    status, out, err = run("--format", "png", "--output", os.path.join(tmp, "never.png"), *extra)
    check(status == 2 and err.count("\n") == 1 and err.startswith("qkv: --size")
          and not os.path.exists(os.path.join(tmp, "never.png")), f"{desc}: one line, exit 2", err)
status, out, err = run("--format", "svg", "--output", os.path.join(tmp, "no", "such", "dir.svg"))
check(status == 2 and err.count("\n") == 1 and "dir.svg" in err, "unwritable --output: one line, exit 2", err)
status, out, err = run("--format", "svg", "--output", tmp)
check(status == 2 and err.count("\n") == 1 and "folder" in err, "--output a folder: one line, exit 2", err)
status, out, err = run("--size", "800x600")
check(status == 2 and err.count("\n") == 1 and "svg, pdf or png" in err, "--size without a figure format: exit 2", err)
for fmt in ("png", "pdf"):
    master, slave = pty.openpty()
    status, out, err = run("--format", fmt, stdout=slave)
    os.close(slave)
    os.close(master)
    check(status == 2 and err.count("\n") == 1 and "terminal" in err, f"--format {fmt} to a terminal: refused, exit 2", err)
status, out, err = run("--format", "png")
check(status == 0 and out.startswith(b"\x89PNG"), "--format png into a pipe: written")

# --output is atomic for text formats too, and an existing file is replaced whole.
txt = os.path.join(tmp, "report.md")
open(txt, "w").write("OLDCONTENT\n" * 10000)
status, out, err = run("--format", "markdown", "--output", txt)
check(status == 0 and out == b"" and open(txt).read().startswith("#") and "OLDCONTENT" not in open(txt).read(),
      "--output with markdown: the report in the file, nothing on stdout")

# The d_k sweep as a figure: four charts, each point where its value puts it.
status, out, err = run("--sweep", "--tokens", "8", "--trials", "4", "--dk-max", "256", "--format", "json")
sweep = json.loads(out)["rows"]
root = svg_of("--sweep", "--tokens", "8", "--trials", "4", "--dk-max", "256")
plots = [r for r in root.iter(SVG_NS + "rect") if r.get("id", "").rsplit("-", 1)[0] == "plot"]
discs = [c for c in root.iter(SVG_NS + "circle")]
check(len(plots) == 4 and len(discs) == 4 * len(sweep) + 1,
      "sweep SVG: four charts, a disc per point of the scaled curve (and the legend's)", f"{len(plots)}, {len(discs)}")
bad = []
for k, (key, low, high) in enumerate((("max_weight", 0, 1), ("entropy_ratio", 0, 1))):
    box = [float(plots[k].get(a)) for a in ("x", "y", "width", "height")]
    points = discs[1 + k * len(sweep):1 + (k + 1) * len(sweep)]
    for i, (c, row) in enumerate(zip(points, sweep)):
        want_y = box[1] + box[3] * (1 - (row["scaled"][key] - low) / (high - low))
        want_x = box[0] + box[2] * i / (len(sweep) - 1)
        if abs(float(c.get("cy")) - want_y) > 0.01 or abs(float(c.get("cx")) - want_x) > 0.01:
            bad.append((key, row["d_k"], c.get("cx"), c.get("cy"), want_x, want_y))
check(not bad, "sweep SVG: each scaled point at its d_k (log2 axis) and its value", f"{bad[:3]}")
box = [float(plots[3].get(a)) for a in ("x", "y", "width", "height")]
ys = [float(c.get("cy")) for c in discs[1 + 3 * len(sweep):1 + 4 * len(sweep)]]
variances = [row[side]["score_variance"] for row in sweep for side in ("scaled", "unscaled")]
low, high = math.floor(math.log10(min(variances))), math.ceil(math.log10(max(variances)))
want = [box[1] + box[3] * (1 - (math.log10(row["scaled"]["score_variance"]) - low) / (high - low)) for row in sweep]
check(all(abs(y - w) < 0.01 for y, w in zip(ys, want)), "sweep SVG: the variance chart is logarithmic, whole decades",
      f"{ys} != {want}")
check(texts(root, "xtick")[:len(sweep)] == [str(row["d_k"]) for row in sweep], "sweep SVG: d_k ticks 1, 2, 4, …")
check(sorted(set(texts(root, "legend"))) == ["scaled (\u00f7\u221ad\u2096)", "unscaled"], "sweep SVG: the legend")
for fmt in ("png", "pdf"):
    path = os.path.join(tmp, "sweep." + fmt)
    status, out, err = run("--sweep", "--tokens", "8", "--trials", "2", "--format", fmt, "--output", path)
    head = open(path, "rb").read(8)
    check(status == 0 and head.startswith(b"\x89PNG" if fmt == "png" else b"%PDF-"), f"sweep {fmt} written")
status, out, err = run("--sweep", "--format", "svg", "--palette", "nonsense")
check(status == 2 and err.count("\n") == 1, "sweep with an unknown palette: one line, exit 2", err)

# Labels and titles with XML's and LaTeX's special characters stay themselves.
weird_path = os.path.join(tmp, "weird.json")
weird = {"title": "T <&> \"x\"", "tokens": ["a<b", "c&d", "\u00fcber-long-label-of-many-letters"],
         "Q": we["Q"], "K": we["K"], "V": we["V"]}
open(weird_path, "w").write(json.dumps(weird))
root = svg_of(weird_path)
check(texts(root, "title") == ["T <&> \"x\""] and texts(root, "label")[:3] == ["a<b", "c&d", "\u00fcber-long-la\u2026"],
      "SVG: special characters in the title and labels read back; a long label ends in \u2026", f"{texts(root, 'label')[:3]}")
status, out, err = run(weird_path, "--format", "latex", "--heatmap")
check(status == 0 and "a\\textless{}b & c\\&d" in out.decode(), "--heatmap: labels escaped for LaTeX", out.decode()[:400])

# Training's figures are test_train_figure.py's.

# LaTeX heatmaps: the tabular's \cellcolor[RGB] cells and numbers, the pgfplots
# variant's colour map and data (check_latex.sh compiles them with pdflatex).
import re

status, out, err = run("--format", "latex", "--heatmap", "--mask", "causal")
tex = out.decode()
cellcolors = re.findall(r"\\cellcolor\[RGB\]\{(\d+),(\d+),(\d+)\}\\textcolor\[RGB\]\{(\d+),(\d+),(\d+)\}\{([^}]*)\}", tex)
want = [MASKED if j > i else weight_colour(wm[i][j], VIRIDIS) for i in range(n) for j in range(n)]
got = ["#%02x%02x%02x" % tuple(int(x) for x in c[:3]) for c in cellcolors]
check(status == 0 and got == want, "--heatmap: one \\cellcolor per cell, the palette's colour", f"{got}")
check([c[6] for c in cellcolors] == ["---" if j > i else f"${shown(wm[i][j], 2)}$" for i in range(n) for j in range(n)],
      "--heatmap: the numbers (masked: ---)")
check(["#%02x%02x%02x" % tuple(int(x) for x in c[3:6]) for c in cellcolors] == [text_on(c) for c in want],
      "--heatmap: each number black or white by contrast")
check(tex.count("\\begin{tabular}") == 1 and tex.count("\\end{tabular}") == 1
      and tex.count("\\\\\n") == n + 1, "--heatmap: one tabular, a header row and a row per query")

status, out, err = run("--format", "latex", "--heatmap=pgfplots", "--stage", "1", "--decimals", "3")
pgf = out.decode()
rows = re.findall(r"^(\d+) (\d+) (-?[\d.]+) \{([^}]*)\} (white|black)$", pgf, re.M)
limit = max(abs(x) for row in scores for x in row)
steps = [PUOR.index(signed_colour(scores[int(r[1])][int(r[0])], limit, PUOR)) + 0.5 for r in rows]
check(status == 0 and len(rows) == n * n and [float(r[2]) for r in rows] == steps,
      "--heatmap=pgfplots: a data line per cell, its step of PuOr", f"{len(rows)} lines")
check([r[3] for r in rows] == [shown(scores[int(r[1])][int(r[0])], 3) for r in rows], "--heatmap=pgfplots: the numbers")
cmap = re.search(r"colormap=\{qkv\}\{([^}]*)\}", pgf)
check(cmap is not None and ["#%02x%02x%02x" % tuple(map(int, c)) for c in re.findall(r"rgb255=\((\d+),(\d+),(\d+)\)", cmap.group(1))] == PUOR,
      "--heatmap=pgfplots: the colour map is the PuOr ramp")
check(pgf.count("\\begin{axis}") == 1 and pgf.count("\\end{axis}") == 1 and "matrix plot*" in pgf,
      "--heatmap=pgfplots: one axis with a matrix plot")

for desc, args, words in (("--heatmap with --stage 5", ["--heatmap", "--stage", "5"], "stage 1, 2 or 3"),
                          ("--heatmap with --format csv", ["--format", "csv", "--heatmap"], "--format latex"),
                          ("--heatmap=bogus", ["--heatmap=bogus"], "table or pgfplots")):
    status, out, err = run(*args)
    check(status == 2 and err.count("\n") == 1 and words in err and out == b"", f"{desc}: one line, exit 2", err)

print(f"1..{count}")
sys.exit(1 if failed else 0)
