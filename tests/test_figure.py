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
# viridis, every 8th entry of the 256 (0, 8, … 248, 255), typed from matplotlib's
# _cm_listed.py: linear between them is within 2 of the whole table per channel.
VIRIDIS_EVERY_8 = [(0.267004, 0.004874, 0.329415),
    (0.277018, 0.050344, 0.375715),
    (0.282327, 0.094955, 0.417331),
    (0.282884, 0.135920, 0.453427),
    (0.278826, 0.175490, 0.483397),
    (0.270595, 0.214069, 0.507052),
    (0.258965, 0.251537, 0.524736),
    (0.244972, 0.287675, 0.537260),
    (0.229739, 0.322361, 0.545706),
    (0.214298, 0.355619, 0.551184),
    (0.199430, 0.387607, 0.554642),
    (0.185556, 0.418570, 0.556753),
    (0.172719, 0.448791, 0.557885),
    (0.160665, 0.478540, 0.558115),
    (0.149039, 0.508051, 0.557250),
    (0.137770, 0.537492, 0.554906),
    (0.127568, 0.566949, 0.550556),
    (0.120565, 0.596422, 0.543611),
    (0.120638, 0.625828, 0.533488),
    (0.132268, 0.655014, 0.519661),
    (0.157851, 0.683765, 0.501686),
    (0.196571, 0.711827, 0.479221),
    (0.246070, 0.738910, 0.452024),
    (0.304148, 0.764704, 0.419943),
    (0.369214, 0.788888, 0.382914),
    (0.440137, 0.811138, 0.340967),
    (0.515992, 0.831158, 0.294279),
    (0.595839, 0.848717, 0.243329),
    (0.678489, 0.863742, 0.189503),
    (0.762373, 0.876424, 0.137064),
    (0.845561, 0.887322, 0.099702),
    (0.926106, 0.897330, 0.104071),
    (0.993248, 0.906157, 0.143936)]
VIRIDIS_AT = list(range(0, 256, 8)) + [255]
# Moreland's cool-warm, its 33 points at k/32 (CoolWarmFloat33).
COOLWARM = [
    (0.2298057, 0.298717966, 0.753683153), (0.26623388, 0.353094838, 0.801466763),
    (0.30386891, 0.406535296, 0.84495867), (0.342804478, 0.458757618, 0.883725899),
    (0.38301334, 0.50941904, 0.917387822), (0.424369608, 0.558148092, 0.945619588),
    (0.46666708, 0.604562568, 0.968154911), (0.509635204, 0.648280772, 0.98478814),
    (0.552953156, 0.688929332, 0.995375608), (0.596262162, 0.726149107, 0.999836203),
    (0.639176211, 0.759599947, 0.998151185), (0.681291281, 0.788964712, 0.990363227),
    (0.722193294, 0.813952739, 0.976574709), (0.761464949, 0.834302879, 0.956945269),
    (0.798691636, 0.849786142, 0.931688648), (0.833466556, 0.860207984, 0.901068838),
    (0.865395197, 0.86541021, 0.865395561), (0.897787179, 0.848937047, 0.820880546),
    (0.924127593, 0.827384882, 0.774508472), (0.944468518, 0.800927443, 0.726736146),
    (0.958852946, 0.769767752, 0.678007945), (0.96732803, 0.734132809, 0.628751763),
    (0.969954137, 0.694266682, 0.579375448), (0.966811177, 0.650421156, 0.530263762),
    (0.958003065, 0.602842431, 0.481775914), (0.943660866, 0.551750968, 0.434243684),
    (0.923944917, 0.49730856, 0.387970225), (0.89904617, 0.439559467, 0.343229596),
    (0.869186849, 0.378313092, 0.300267182), (0.834620542, 0.312874446, 0.259301199),
    (0.795631745, 0.24128379, 0.220525627), (0.752534934, 0.157246067, 0.184115123),
    (0.705673158, 0.01555616, 0.150232812)]
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


def table_at(entries, at, t):
    """The colour (r, g, b 0..255) of a table at t in [0, 1], linear between the
    entries, entry k at at[k] / at[-1]."""
    t = max(0.0, min(1.0, t)) * at[-1]
    for k in range(len(at) - 1):
        if at[k] <= t <= at[k + 1]:
            f = (t - at[k]) / (at[k + 1] - at[k])
            return tuple(round((a + (b - a) * f) * 255) for a, b in zip(entries[k], entries[k + 1]))
    raise ValueError(t)


def viridis(t):
    return table_at(VIRIDIS_EVERY_8, VIRIDIS_AT, t)


def coolwarm(t):
    return table_at(COOLWARM, list(range(33)), t)


# The grey map: L* from 12 to 92 (docs/formats.md), L* → Y → sRGB.
def grey_map(t):
    lightness = 12 + 80 * t
    y = ((lightness + 16) / 116) ** 3 if lightness > 8 else lightness / 903.3
    c = 12.92 * y if y <= 0.0031308 else 1.055 * y ** (1 / 2.4) - 0.055
    return "#%02x%02x%02x" % ((round(255 * c),) * 3)


def rgb_of(hexcolour):
    return tuple(int(hexcolour[i:i + 2], 16) for i in (1, 3, 5))


def near(got, want, tolerance=2):
    """Whether two colours (hex or tuples) are within tolerance per channel."""
    got = rgb_of(got) if isinstance(got, str) else got
    want = rgb_of(want) if isinstance(want, str) else want
    return all(abs(a - b) <= tolerance for a, b in zip(got, want))


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
    return ["".join(t.itertext()) for t in root.iter(SVG_NS + "text") if t.get("id", "").rsplit("-", 1)[0] == cls]


def value_inks(root):
    return [t.get("fill") for t in root.iter(SVG_NS + "text") if t.get("id", "").rsplit("-", 1)[0] == "value"]


def bar_strips(root):
    """The continuous colour bar's rectangles (a <g id="bar-N"> of them), bottom first."""
    return [r for g in root.iter(SVG_NS + "g") if g.get("id", "").rsplit("-", 1)[0] == "bar"
            for r in g.iter(SVG_NS + "rect")]


def bar_box(root):
    """The continuous colour bar's x, y, width and height: its rectangles' union."""
    strips = bar_strips(root)
    top = min(float(r.get("y")) for r in strips)
    bottom = max(float(r.get("y")) + float(r.get("height")) for r in strips)
    return float(strips[0].get("x")), top, float(strips[0].get("width")), bottom - top


def bars(root):
    """How many colour bars: continuous ones and stepped ones (rects "bar-N")."""
    return (len([g for g in root.iter(SVG_NS + "g") if g.get("id", "").rsplit("-", 1)[0] == "bar"])
            + len([r for r in root.iter(SVG_NS + "rect") if r.get("id", "").rsplit("-", 1)[0] == "bar"]))


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
want = [viridis(weights[i][j]) for i in range(n) for j in range(n)]
got = [r.get("fill") for r in rects]
check(all(near(g, w) for g, w in zip(got, want)), "weights SVG: each cell's fill is viridis at its weight",
      f"{got} != {want}")
want_text = [shown(weights[i][j], 2) for i in range(n) for j in range(n)]
check(texts(root, "value") == want_text, "weights SVG: the numbers are the weights at 2 decimals",
      f"{texts(root, 'value')}")
check(value_inks(root) == [text_on(c) for c in got], "weights SVG: each number black or white by WCAG contrast")
check(texts(root, "label")[:n] == we["tokens"] and texts(root, "label")[n:2 * n] == we["tokens"],
      "weights SVG: token labels on both axes")
check(any("A = softmax" in (t or "") for t in texts(root, "formula")), "weights SVG: the stage's formula")
ticks = texts(root, "tick")
check(ticks == ["0.00", "0.25", "0.50", "0.75", "1.00"], "weights SVG: the colour bar's round ticks", f"{ticks}")
strips = bar_strips(root)
check(not any(True for _ in root.iter(SVG_NS + "linearGradient")) and 2 <= len(strips) <= 256,
      "weights SVG: the colour bar is rectangles, no gradient", f"{len(strips)} rectangles")
bx, by, bw, bh = bar_box(root)
bad = []
for k, r in enumerate(strips):
    y, h = float(r.get("y")), float(r.get("height"))
    step = bh / len(strips)
    # Rectangle k (from the bottom) covers the bar's k-th part and reaches into the next.
    covers = abs((y + h) - (by + bh - k * step)) < 1e-3 and y <= by + bh - (k + 1) * step + 1e-3
    middle = (k + 0.5) / len(strips)   # the fraction of the range at its middle
    if not covers or not near(r.get("fill"), viridis(middle)):
        bad.append((k, r.get("fill"), viridis(middle), covers))
check(not bad and all(abs(float(r.get("x")) - bx) < 1e-9 for r in strips),
      "weights SVG: the bar's rectangles cover it bottom to top without gaps, each viridis at its middle",
      f"{bad[:4]}")

facts = texts(root, "facts")[0]
check(facts == f"3 tokens, dk = 2, dv = 2; divisor \u221adk = \u221a2 = {math.sqrt(2):.4f}; no mask",
      "weights SVG: the facts line (sizes, divisor, mask)", facts)

# --decimals 4.
root = svg_of("--stage", "3", "--decimals", "4")
check(texts(root, "value") == [shown(weights[i][j], 4) for i in range(n) for j in range(n)],
      "--decimals 4: the numbers at 4 decimals")

# Scores and scaled scores: cool-warm, the ends ±max |value|.
for stage, matrix in (("1", scores), ("2", scaled)):
    root = svg_of("--stage", stage, "--decimals", "3")
    limit = max(abs(x) for row in matrix for x in row) or 1.0
    want = [coolwarm((matrix[i][j] + limit) / (2 * limit)) for i in range(n) for j in range(n)]
    got = [r.get("fill") for r in cells(root)]
    check(all(near(g, w) for g, w in zip(got, want)), f"stage {stage} SVG: fills on cool-warm, \u00b1max |value|",
          f"{got}")
    ticks = texts(root, "tick")
    check(len(ticks) >= 3 and ticks[len(ticks) // 2] == "0" and ticks[0] == "\u2212" + ticks[-1],
          f"stage {stage} SVG: symmetric round ticks about 0", f"{ticks}")
    steps = svg_of("--stage", stage, "--palette", "projector")
    want = [signed_colour(matrix[i][j], limit, ["#542788", "#b2abd2", "#f7f7f7", "#fdb863", "#7f3b08"])
            for i in range(n) for j in range(n)]
    check([r.get("fill") for r in cells(steps)] == want, f"stage {stage} --palette projector: the screen's steps")
    check(texts(root, "value") == [shown(matrix[i][j], 3) for i in range(n) for j in range(n)],
          f"stage {stage} SVG: the numbers at 3 decimals")

# A causal mask: masked grey and a dash.
dm = problem("--mask", "causal")
_, _, wm, _ = attention(dm)
root = svg_of("--stage", "3", "--mask", "causal")
fills = [r.get("fill") for r in cells(root)]
want = [MASKED if j > i else viridis(wm[i][j]) for i in range(n) for j in range(n)]
check(all(near(f, w) for f, w in zip(fills, want)), "causal mask: masked cells are the masked grey", f"{fills}")
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

# The formula's runs: "Q = X W_Q,  K = X W_K, …" sets Q and K as subscripts and
# the comma after each back on the baseline at full size. Every run carries its
# own x and y (a renderer need not carry the pen from one <tspan> to the next):
# x grows run after run, a subscript is lower and smaller than the text.
formula = [t for t in root.iter(SVG_NS + "text") if t.get("id", "").rsplit("-", 1)[0] == "formula"][0]
spans = list(formula.iter(SVG_NS + "tspan"))
base_y, base_size = float(formula.get("y")), float(formula.get("font-size"))
runs = [(sp.text, float(sp.get("x", "nan")), float(sp.get("y", "nan")),
         float(sp.get("font-size", base_size))) for sp in spans]
subs = [r[0] for r in runs if r[2] > base_y]
after = [r for r in runs if r[0].startswith(",")]
check(subs == ["Q", "K", "V"] and all(r[3] < base_size for r in runs if r[2] > base_y)
      and len(after) == 2 and all(r[2] == base_y and r[3] == base_size for r in after)
      and all(b[1] > a[1] for a, b in zip(runs, runs[1:])),
      "stage 0 SVG: the formula's subscripts W_Q, W_K, W_V lowered and smaller, the commas after them on the "
      "baseline, each run placed after the one before", f"{runs}")

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
    if not near(pixel, viridis(weights[i // n][i % n])):
        bad.append((i, pixel))
check(not bad, "PNG: each cell's colour at its centre line is viridis at its value", f"{bad}")
bx, by, bw, bh = bar_box(root)
top, bottom = rows[int(by + 2)][int(bx + bw / 2)], rows[int(by + bh - 2)][int(bx + bw / 2)]
middle = rows[int(by + bh / 2)][int(bx + bw / 2)]
check(near(top, viridis(1 - 2 / bh)) and near(bottom, viridis(2 / bh)) and near(middle, viridis(0.5), 3),
      "PNG: the colour bar is viridis 1 at its top, 0.5 halfway, 0 at its bottom", f"{top} {middle} {bottom}")
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
check(facts == "16 tokens, dk = 1024, dv = 1024, seed 1; scaling off (divisor 1); no mask",
      "16 tokens: the facts line says scaling is off", facts)
status, data, err = run(*args, "--format", "png", "--output", os.path.join(tmp, "r.png"))
width, height, rows = png_pixels(open(os.path.join(tmp, "r.png"), "rb").read())
bad = 0
for r, i in zip(cells(root), range(256)):
    x = float(r.get("x")) + float(r.get("width")) / 2
    y = float(r.get("y")) + float(r.get("height")) * 0.15
    bad += not near(rows[int(y)][int(x)], viridis(wr[i // 16][i % 16]))
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
            bad += not near(rows[int(y)][int(x)], viridis(wr[i // 16][i % 16]))
        check(abs(height / width - 1000 / 1600) < 0.01 and bad == 0,
              "the SVG through ImageMagick: the shape, and every cell in its colour", f"{width}x{height}, {bad} wrong")
        # The colour bar, drawn by ImageMagick too (it drew a <linearGradient> black):
        # viridis near its bottom, at its middle and near its top, ±2 a channel.
        bx, by, bw, bh = (v * ratio for v in bar_box(root))
        seen = []
        for t in (2 / bh, 0.5, 1 - 2 / bh):
            pixel = rows[int(by + bh - t * bh)][int(bx + bw / 2)]
            seen.append((round(t, 3), hexrgb(pixel), viridis(t), near(pixel, viridis(t), 2)))
        check(all(s[3] for s in seen), "the SVG through ImageMagick: the colour bar is viridis at its ends and middle",
              f"{seen}")

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
# variant's colour map and data (check_latex.sh compiles them with pdflatex). Their
# colours are the figures': the continuous map (viridis, cool-warm for signed
# values), --levels, --range and --palette cividis or grey; the screen's steps with
# --palette projector, 8 or mono.
import re


def cellcolours(tex):
    return re.findall(r"\\cellcolor\[RGB\]\{(\d+),(\d+),(\d+)\}\\textcolor\[RGB\]\{(\d+),(\d+),(\d+)\}\{([^}]*)\}", tex)


def binned(t, levels):
    """t in [0, 1] in `levels` equal bins, bin k read at k / (levels - 1)."""
    t = min(max(t, 0.0), 1.0)
    return min(levels - 1, math.floor(t * levels)) / (levels - 1)


status, out, err = run("--format", "latex", "--heatmap", "--mask", "causal")
tex = out.decode()
cellcolors = cellcolours(tex)
want = [MASKED if j > i else viridis(wm[i][j]) for i in range(n) for j in range(n)]
got = ["#%02x%02x%02x" % tuple(int(x) for x in c[:3]) for c in cellcolors]
check(status == 0 and len(got) == n * n and all(near(g, w) for g, w in zip(got, want)),
      "--heatmap: one \\cellcolor per cell, continuous viridis at its weight (masked: the grey)", f"{got}")
check([c[6] for c in cellcolors] == ["---" if j > i else f"${shown(wm[i][j], 2)}$" for i in range(n) for j in range(n)],
      "--heatmap: the numbers (masked: ---)")
check(["#%02x%02x%02x" % tuple(int(x) for x in c[3:6]) for c in cellcolors] == [text_on(c) for c in got],
      "--heatmap: each number black or white by contrast")
check(tex.count("\\begin{tabular}") == 1 and tex.count("\\end{tabular}") == 1
      and tex.count("\\\\\n") == n + 1, "--heatmap: one tabular, a header row and a row per query")
_, out, _ = run("--format", "latex", "--heatmap", "--palette", "projector")
got = ["#%02x%02x%02x" % tuple(int(x) for x in c[:3]) for c in cellcolours(out.decode())]
check(got == [weight_colour(weights[i][j], VIRIDIS_PROJECTOR) for i in range(n) for j in range(n)],
      "--heatmap --palette projector: the screen's steps", f"{got}")
status, out, err = run("--format", "latex", "--heatmap", "--palette", "grey", "--levels", "3", "--range", "0:0.5")
got = ["#%02x%02x%02x" % tuple(int(x) for x in c[:3]) for c in cellcolours(out.decode())]
want = [grey_map(binned(weights[i][j] / 0.5, 3)) for i in range(n) for j in range(n)]
check(status == 0 and len(got) == n * n and all(near(g, w) for g, w in zip(got, want)) and len(set(got)) <= 3,
      "--heatmap --palette grey --levels 3 --range 0:0.5: the grey map's three levels, clamped at 0.5",
      f"{err} {got} != {want}")
status, out, err = run("--format", "latex", "--heatmap", "--stage", "2", "--range", "-1:1")
got = ["#%02x%02x%02x" % tuple(int(x) for x in c[:3]) for c in cellcolours(out.decode())]
want = [coolwarm(min(max((scaled[i][j] + 1) / 2, 0), 1)) for i in range(n) for j in range(n)]
check(status == 0 and all(near(g, w) for g, w in zip(got, want)), "--heatmap --stage 2 --range -1:1: cool-warm, clamped",
      f"{got} != {want}")

status, out, err = run("--format", "latex", "--heatmap=pgfplots", "--stage", "1", "--decimals", "3")
pgf = out.decode()
rows = re.findall(r"^(\d+) (\d+) (-?[\d.]+) \{([^}]*)\} (white|black)$", pgf, re.M)
limit = max(abs(x) for row in scores for x in row)
steps = [min(255, math.floor((scores[int(r[1])][int(r[0])] + limit) / (2 * limit) * 256)) + 0.5 for r in rows]
check(status == 0 and len(rows) == n * n and [float(r[2]) for r in rows] == steps,
      "--heatmap=pgfplots: a data line per cell, its bin of 256 over \u00b1max |score|", f"{len(rows)} lines")
check([r[3] for r in rows] == [shown(scores[int(r[1])][int(r[0])], 3) for r in rows], "--heatmap=pgfplots: the numbers")
cmap = re.search(r"colormap=\{qkv\}\{([^}]*)\}", pgf)
entries = ["#%02x%02x%02x" % tuple(map(int, c)) for c in re.findall(r"rgb255=\((\d+),(\d+),(\d+)\)", cmap.group(1))] if cmap else []
check(len(entries) == 256 and all(near(entries[k], coolwarm(k / 255)) for k in (0, 64, 128, 200, 255)),
      "--heatmap=pgfplots: the colour map is cool-warm in 256 bins", f"{len(entries)} entries")
status, out, err = run("--format", "latex", "--heatmap=pgfplots", "--stage", "1", "--palette", "projector")
pgf_steps = out.decode()
rows = re.findall(r"^(\d+) (\d+) (-?[\d.]+) \{([^}]*)\} (white|black)$", pgf_steps, re.M)
projector_signed = ["#542788", "#b2abd2", "#f7f7f7", "#fdb863", "#7f3b08"]
steps = [projector_signed.index(signed_colour(scores[int(r[1])][int(r[0])], limit, projector_signed)) + 0.5 for r in rows]
check(status == 0 and [float(r[2]) for r in rows] == steps, "--heatmap=pgfplots --palette projector: the screen's steps")
check(pgf.count("\\begin{axis}") == 1 and pgf.count("\\end{axis}") == 1 and "matrix plot*" in pgf,
      "--heatmap=pgfplots: one axis with a matrix plot")
# No tick mark reaches into a cell (drawn inside the axis, it reads as a minus sign
# before the first column's numbers), and a head's title stands above the
# picture, not in the axis where the key labels and "keys" are.
check("major tick length=0pt" in pgf, "--heatmap=pgfplots: no tick marks beside the numbers")
# Key labels side by side while each fits its column (4 keys of 2 characters on
# an axis at least 150 pt wide: 37 pt a column); upright above their columns when
# one does not (16 keys: 9.4 pt a column, less than the 3 characters of "t10"),
# the axis's height then bounded by the frame's text height less their length;
# 64-byte labels upright in small type, in boxes 100 pt long.
_, out, _ = run("--random", "--tokens", "4", "--dk", "2", "--format", "latex", "--heatmap=pgfplots")
check("rotate=90" not in out.decode() and "height=" not in out.decode(),
      "--heatmap=pgfplots, 4 short key labels: side by side")
_, out, _ = run("--random", "--tokens", "16", "--dk", "2", "--format", "latex", "--heatmap=pgfplots")
check("xticklabel style={rotate=90, anchor=west}" in out.decode() and "height=\\textheight-" in out.decode(),
      "--heatmap=pgfplots, 16 keys: key labels upright, the axis's height bounded")
# The numbers shrink with the cells (normal size, \scriptsize, \tiny) and are left
# out, with a comment saying so, once the widest is wider than a cell: never
# larger as keys are added, and never back once gone.
sizes = []
for keys in range(2, 17):
    _, out, _ = run("--random", "--tokens", str(keys), "--dk", "8", "--format", "latex", "--heatmap=pgfplots")
    text = out.decode()
    if "nodes near coords={" not in text:
        sizes.append(0 if "% no numbers: the widest is wider than a cell" in text else -1)
    else:
        sizes.append(5 if "font=\\tiny" in text else 7 if "font=\\scriptsize" in text else 10)
check(sizes[0] == 10 and sizes[-1] == 0 and -1 not in sizes and all(a >= b for a, b in zip(sizes, sizes[1:])),
      "--heatmap=pgfplots: the numbers' size falls as keys are added, then they are left out, said in a comment",
      f"{sizes}")
_, out, _ = run(os.path.join(root_dir, "tests", "data", "golden", "inputs", "labels-latex.json"), "--format", "latex",
                "--heatmap=pgfplots")
check("xticklabel style={rotate=90, anchor=west, font=\\scriptsize, text width=100pt, align=left}" in out.decode()
      and float(re.search(r"height=\\textheight-([0-9.]+)pt", out.decode()).group(1)) >= 100 + 12,
      "--heatmap=pgfplots, 64-byte labels: upright, in boxes 100 pt long; the axis gives up their length and \"keys\"")
status, out, err = run("--random", "--heads", "2", "--dmodel", "4", "--tokens", "3", "--format", "latex",
                       "--heatmap=pgfplots")
heads_pgf = out.decode()
check(status == 0 and "title=" not in heads_pgf and heads_pgf.count("\\textbf{Head ") == 2
      and heads_pgf.index("\\textbf{Head 1 of 2}") < heads_pgf.index("\\begin{tikzpicture}"),
      "--heatmap=pgfplots of two heads: each head's title above its picture", err)
status, out, err = run("--format", "latex", "--heatmap", "--numbers", "off")
check(status == 2 and err.count("\n") == 1 and "--numbers" in err, "--heatmap --numbers off: one line, exit 2", err)
status, out, err = run("--format", "latex", "--heatmap", "--palette", "mono", "--levels", "4")
check(status == 2 and err.count("\n") == 1 and "continuous" in err, "--heatmap --levels with the mono steps: exit 2", err)

for desc, args, words in (("--heatmap with --stage 5", ["--heatmap", "--stage", "5"], "stage 1, 2 or 3"),
                          ("--heatmap with --format csv", ["--format", "csv", "--heatmap"], "--format latex"),
                          ("--heatmap=bogus", ["--heatmap=bogus"], "table or pgfplots")):
    status, out, err = run(*args)
    check(status == 2 and err.count("\n") == 1 and words in err and out == b"", f"{desc}: one line, exit 2", err)

# ---- continuous maps, levels, range, numbers, title, heads ----------------------------

def level_of(t, levels):
    """t in [0, 1] read in `levels` equal bins, bin k at k / (levels - 1)."""
    k = min(int(max(0.0, min(1.0, t)) * levels), levels - 1)
    return k / (levels - 1)


c16 = ["--random", "--tokens", "16", "--dk", "8", "--mask", "causal"]
d16 = problem(*c16)
_, _, w16, _ = attention(d16)
live16 = [(i, j) for i in range(16) for j in range(16) if j <= i]
root = svg_of(*c16, "--stage", "3")
fills16 = [r.get("fill") for r in cells(root)]
distinct = {fills16[i * 16 + j] for i, j in live16}
check(len(distinct) > 50, "16 tokens: the weights take many colours (continuous)", f"{len(distinct)}")
for levels in (3, 4):
    root = svg_of(*c16, "--stage", "3", "--levels", str(levels))
    fills = [r.get("fill") for r in cells(root)]
    want = [viridis(level_of(w16[i][j], levels)) for i, j in live16]
    expected_count = len({level_of(w16[i][j], levels) for i, j in live16})
    got = {fills[i * 16 + j] for i, j in live16}
    check(all(near(fills[i * 16 + j], w) for (i, j), w in zip(live16, want)) and len(got) == expected_count == levels,
          f"--levels {levels}: exactly {levels} colours, each the level of its weight", f"{len(got)} of {expected_count}")
    bands = [r for r in root.iter(SVG_NS + "rect") if r.get("id", "").rsplit("-", 1)[0] == "bar"]
    check(len(bands) == levels, f"--levels {levels}: the bar in {levels} bands", f"{len(bands)}")

# --numbers: off leaves no number in a cell; auto drops them at 64 tokens and keeps
# them at 3; --size small enough drops them in auto but not with on.
check(texts(svg_of("--stage", "3", "--numbers", "off"), "value") == [], "--numbers off: no number in any cell")
check(len(texts(svg_of("--stage", "3"), "value")) == 9, "--numbers auto, 3 tokens: every cell's number")
root = svg_of("--random", "--tokens", "64", "--dk", "8", "--stage", "3")
check(texts(root, "value") == [] and len(cells(root)) == 64 * 64, "--numbers auto, 64 tokens: the cells, no numbers")
root = svg_of("--random", "--tokens", "64", "--dk", "8", "--stage", "3", "--numbers", "on")
check(len(texts(root, "value")) == 64 * 64, "--numbers on, 64 tokens: every number")
check(texts(svg_of(*c16, "--stage", "3", "--size", "200x150"), "value") == []
      and len(texts(svg_of(*c16, "--stage", "3", "--size", "2000x1500"), "value")) == 16 * 16,
      "--numbers auto: 16 tokens at 200x150 without numbers, at 2000x1500 with them")

# --title.
root = svg_of("--stage", "3", "--title", "Attention of t3")
check(texts(root, "title") == ["Attention of t3"] and texts(root, "formula") == [] and texts(root, "facts") == [],
      "--title TEXT: that title instead of the built-in lines")
root = svg_of("--stage", "3", "--title", "")
check(texts(root, "title") == [] and texts(root, "formula") == [] and len(cells(root)) == 9,
      "--title '': no title, the heatmap alone")

# --range 0:0.5: a weight of 0.5 or more takes viridis' last colour, the bar says ≥ 0.5.
root = svg_of("--stage", "3", "--range", "0:0.5")
fills = [r.get("fill") for r in cells(root)]
want = [viridis(min(1.0, weights[i][j] / 0.5)) for i in range(n) for j in range(n)]
check(all(near(f, w) for f, w in zip(fills, want)) and any(weights[i][j] >= 0.5 for i in range(n) for j in range(n)),
      "--range 0:0.5: colours over 0..0.5, 0.5 and above clamped to the end", f"{fills}")
check(texts(root, "clamp") == ["\u2265 0.5"] and texts(root, "tick")[-1] == "0.5",
      "--range 0:0.5: the bar's end says \u2265 0.5", f"{texts(root, 'clamp')} {texts(root, 'tick')}")
check(texts(svg_of("--stage", "3"), "clamp") == [], "auto range: nothing clamped, no mark")

# --palette cividis and grey: their first and last colours at weights 0 and 1 (causal: row 1 is 1).
root = svg_of("--stage", "3", "--mask", "causal", "--palette", "grey")
fills = [r.get("fill") for r in cells(root)]
check(fills[0][1:3] == fills[0][3:5] == fills[0][5:7] and fills[0] != MASKED, "--palette grey: the weight 1 is a grey")
root = svg_of("--stage", "3", "--mask", "causal", "--palette", "cividis")
check(near([r.get("fill") for r in cells(root)][0], (254, 232, 56)), "--palette cividis: a weight of 1 is cividis' end (0.995737, 0.909344, 0.217772)")

# Masked cells told apart in every map, without their "—" too: with --palette
# grey (its range holds the masked grey) and --numbers off, a masked cell of a
# causal 16-token problem is hatched (its inside is not one colour: two tones at
# least 40 apart), an unmasked cell's centre is the grey map's colour at its
# weight.
causal16 = ["--random", "--tokens", "16", "--dk", "8", "--mask", "causal"]
_, _, w16, _ = attention(problem(*causal16))
extra = [*causal16, "--stage", "3", "--palette", "grey", "--numbers", "off", "--size", "900x900"]
root = svg_of(*extra)
png = os.path.join(tmp, "masked.png")
status, _, err = run(*extra, "--format", "png", "--output", png)
width, height, rows = png_pixels(open(png, "rb").read())
boxes = [(float(r.get("x")), float(r.get("y")), float(r.get("width")), float(r.get("height"))) for r in cells(root)]
spread, centres_bad = [], []
for i in range(16):
    for j in range(16):
        x, y, w, h = boxes[i * 16 + j]
        if j > i:
            inside = [rgb_of(hexrgb(rows[yy][xx])) for yy in range(int(y + 2), int(y + h - 2))
                      for xx in range(int(x + 2), int(x + w - 2))]
            spread.append(max(max(p[0] for p in inside) - min(p[0] for p in inside), 0))
        else:
            got = hexrgb(rows[int(y + h / 2)][int(x + w / 2)])
            if not near(got, grey_map(w16[i][j])):
                centres_bad.append((i, j, got, grey_map(w16[i][j])))
check(status == 0 and len(spread) == 120 and min(spread) >= 40,
      "--palette grey --numbers off: every masked cell is hatched (two tones inside)", f"{err} {spread[:5]}")
check(status == 0 and not centres_bad, "--palette grey --numbers off: each unmasked cell's centre is grey at its weight",
      f"{centres_bad[:4]}")
masked_paths = [e for e in root.iter(SVG_NS + "path") if e.get("id", "").rsplit("-", 1)[0] == "masked"]
check(len(masked_paths) == 120, "SVG: one hatching per masked cell", f"{len(masked_paths)}")

# Bad values: one line, exit 2, nothing written.
for desc, extra, words in (("--range 1:0", ["--range", "1:0"], "--range"), ("--range abc", ["--range", "abc"], "--range"),
                           ("--range 0:", ["--range", "0:"], "--range"), ("--levels 1", ["--levels", "1"], "--levels"),
                           ("--levels 257", ["--levels", "257"], "--levels"), ("--numbers maybe", ["--numbers", "maybe"], "--numbers"),
                           ("--palette coolwarm", ["--palette", "coolwarm"], "--palette"),
                           ("--levels with the projector steps", ["--palette", "projector", "--levels", "4"], "continuous"),
                           ("--heads-panels with one head", ["--heads-panels", "average"], "heads"),
                           ("--heads-panels bogus", ["--heads-panels", "bogus"], "--heads-panels")):
    never = os.path.join(tmp, "never.svg")
    status, out, err = run("--format", "svg", "--output", never, *extra)
    check(status == 2 and err.count("\n") == 1 and words in err and not os.path.exists(never),
          f"{desc}: one line, exit 2", err)
status, out, err = run("--levels", "4")
check(status == 2 and err.count("\n") == 1 and "svg, pdf or png" in err, "--levels without a figure format: exit 2", err)

# Several heads: a heatmap per head, "Head i", one bar; the average and Concat on request.
hargs = ["--random", "--heads", "3", "--dmodel", "12", "--tokens", "6"]
status, out, err = run(*hargs, "--format", "json")
dh = json.loads(out)
root = svg_of(*hargs)
titles = texts(root, "panel-title")
check(len(cells(root)) == 3 * 36 and titles == ["Head 1", "Head 2", "Head 3"],
      "3 heads: 36 cells per head, each headed Head i", f"{len(cells(root))} {titles}")
check(bars(root) == 1, "3 heads: one colour bar", f"{bars(root)}")
# Each head's weights from X and its W's, by this file's arithmetic.
heads_w = [attention(dict(dh, Q=matmul(dh["X"], h["W_Q"]), K=matmul(dh["X"], h["W_K"]),
                          V=matmul(dh["X"], h["W_V"])))[2] for h in dh["heads"]]
if heads_w is not None:
    got = [r.get("fill") for r in cells(root)]
    want = [viridis(heads_w[h][i][j]) for h in range(3) for i in range(6) for j in range(6)]
    check(all(near(g, w) for g, w in zip(got, want)), "3 heads: each head's cells viridis at its weights")
    root = svg_of(*hargs, "--heads-panels", "average")
    avg = [sum(heads_w[h][i][j] for h in range(3)) / 3 for i in range(6) for j in range(6)]
    got = [r.get("fill") for r in cells(root)][3 * 36:]
    check(len(got) == 36 and all(near(g, viridis(a)) for g, a in zip(got, avg)),
          "--heads-panels average: a fourth heatmap, the heads' mean weights")
root = svg_of(*hargs, "--heads-panels", "average,concat", "--stage", "3")
check(texts(root, "panel-title")[3:] == ["Average of the heads", "Concat(head1 \u2026 headh)", "Concat \u00b7 WO"],
      "--heads-panels average,concat: the average, Concat and Concat \u00b7 W_O", f"{texts(root, 'panel-title')}")
root = svg_of(*hargs, "--stage", "1")
check(len(cells(root)) == 3 * 36, "3 heads, stage 1: a heatmap of scores per head")
status, out, err = run(*hargs, "--format", "svg", "--stage", "5")
check(status == 2 and err.count("\n") == 1 and "stage 1, 2 or 3" in err, "3 heads, stage 5: one line, exit 2", err)
hpng = os.path.join(tmp, "heads.png")
status, _, err = run(*hargs, "--format", "png", "--output", hpng)
check(status == 0 and open(hpng, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "3 heads: PNG to --output", err)

print(f"1..{count}")
sys.exit(1 if failed else 0)
