#!/usr/bin/env python3
"""test_train_figure.py — training's figures (qkv --train TASK --format svg|png|pdf,
with and without --train-sweep) from outside.

What the figures must show is read from qkv's JSON reports of the same runs (a
printer apart from the figures): each run's accuracy per step, the sweep's steps
to 90% per seed, from which this script decides itself which medians are only
lower bounds. Colours are checked by WCAG contrast computed here. Usage:
test_train_figure.py PATH/TO/qkv. Prints TAP."""

import json
import math
import os
import pty
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

QKV = sys.argv[1]
SVG_NS = "{http://www.w3.org/2000/svg}"
count = 0
failed = 0
tmp = tempfile.mkdtemp(prefix="qkv-train-figure-")


def check(condition, description, detail=""):
    global count, failed
    count += 1
    if condition:
        print(f"ok {count} - {description}")
    else:
        failed += 1
        print(f"not ok {count} - {description}" + (f" ({detail})" if detail else ""))


def run(*args, stdout=None):
    p = subprocess.run([QKV, *args], stdin=subprocess.DEVNULL,
                       stdout=stdout if stdout is not None else subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def report(*args):
    status, out, err = run(*args, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def svg_of(*args):
    status, out, err = run(*args, "--format", "svg")
    assert status == 0, err
    return ET.fromstring(out)


def role(element):
    return element.get("id", "").rsplit("-", 1)[0]


def of_role(root, tag, name):
    return [e for e in root.iter(SVG_NS + tag) if role(e) == name]


def texts(root, name):
    return [t.text for t in of_role(root, "text", name)]


def box(rect):
    return [float(rect.get(a)) for a in ("x", "y", "width", "height")]


def points(polyline):
    return [tuple(map(float, p.split(","))) for p in polyline.get("points").split()]


def luminance(hexcolour):
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(hexcolour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


try:
    # ---- a run: scaled and unscaled, side by side on the same axes ---------------
    args = ["--train", "lookup", "--steps", "30", "--lr", "0.37"]
    scaled = report(*args)["steps"]
    unscaled = report(*args, "--no-scale")["steps"]
    root = svg_of(*args)
    plots = of_role(root, "rect", "plot")
    curves = {side: of_role(root, "polyline", "curve-" + side) for side in ("scaled", "unscaled")}
    check(len(plots) == 4 and len(curves["scaled"]) == 4 and len(curves["unscaled"]) == 4,
          "run figure: four charts, a scaled and an unscaled curve in each",
          f"{len(plots)} charts, {[len(c) for c in curves.values()]} curves")
    check(sorted(texts(root, "legend")) == ["scaled (\u00f7\u221ad\u2096)", "unscaled (\u00f71)"],
          "run figure: both runs in the legend", f"{texts(root, 'legend')}")
    bad = []
    x, y, w, h = box(plots[1])
    for side, records in (("scaled", scaled), ("unscaled", unscaled)):
        got = points(curves[side][1]) if len(curves[side]) > 1 else []
        want = [(x + w * r["step"] / records[-1]["step"], y + h * (1 - r["accuracy"])) for r in records]
        if len(got) != len(want) or any(abs(a - c) > 0.01 or abs(b - d) > 0.01 for (a, b), (c, d) in zip(got, want)):
            bad.append(side)
    check(not bad, "run figure: each run's accuracy at every step where its own JSON puts it", f"{bad}")
    facts = texts(root, "facts")[0]
    check("learning rate 0.37 " in facts and "d\u2096 16 " in facts and "mean squared error" in facts
          and "SGD" in facts, "run figure: the subtitle names the learning rate, d\u2096, loss and optimiser", facts)
    reached = [next((r["step"] for r in rs if r["accuracy"] >= 0.9), None) for rs in (scaled, unscaled)]
    words = [f"at step {s}" if s is not None else "not within 30 steps" for s in reached]
    result = texts(root, "result")[0]
    check(result == f"30 steps \u00b7 90% accuracy: scaled {words[0]}, unscaled {words[1]}",
          "run figure: when each run reached 90%, from the runs' own accuracies", result)
    status, out, err = run(*args, "--no-scale", "--format", "svg")
    check(status == 2 and err.count("\n") == 1 and out == b"", "--no-scale with a run figure: one line, exit 2", err)

    # ---- no ASCII maths; every curve reads on both backgrounds ------------------
    for background, bg in (("light", "#ffffff"), ("dark", "#121212")):
        for extra in ([], ["--train-sweep", "--seeds", "1"]):
            root = svg_of("--train", "self", "--steps", "20", "--background", background, *extra)
            words = " ".join(t.text or "" for t in root.iter(SVG_NS + "text"))
            strokes = {e.get("stroke") for e in root.iter() if role(e).startswith(("curve-", "bound-"))}
            low = [(s, round(contrast(s, bg), 2)) for s in strokes if contrast(s, bg) < 3.0]
            what = "sweep" if extra else "run"
            check(len(strokes) == 2 and not low, f"{what} figure, {background}: both sides' curves and rings at 3:1 or more", f"{strokes} {low}")
            check("d_k" not in words and "sqrt" not in words and "d\u2096" in words,
                  f"{what} figure, {background}: d\u2096 typeset, no ASCII maths")

    # ---- the sweep: the whole width, seeds, and the censored medians as bounds ---
    args = ["--train", "lookup", "--train-sweep", "--seeds", "3", "--steps", "40", "--lr", "0.75"]
    sweep = report(*args)
    root = svg_of(*args)
    width = float(root.get("viewBox").split()[2])
    plot = box(of_role(root, "rect", "plot")[0])
    check(plot[2] > 0.8 * width, "sweep figure: the plot spans most of the page's width", f"{plot[2]:.0f} of {width:.0f}")
    facts = texts(root, "facts")[0]
    check("learning rate 0.75 " in facts and "mean squared error" in facts and "at most 40 steps" in facts,
          "sweep figure: the subtitle names the learning rate, the loss and the budget", facts)
    ticks = {int(t.text): float(t.get("x")) for t in of_role(root, "text", "xtick")}
    check(sorted(ticks) == [row["d_k"] for row in sweep["rows"]], "sweep figure: a tick per d\u2096")

    def censored(steps):
        """Whether the median of these steps is a lower bound: a middle one is a
        run that never got there (None), counted as past the budget."""
        order = sorted(math.inf if s is None else s for s in steps)
        middle = order[(len(order) - 1) // 2:len(order) // 2 + 1]
        return any(math.isinf(m) for m in middle)

    expect, wrong, seen = {}, [], {"scaled": set(), "unscaled": set()}
    for side in ("scaled", "unscaled"):
        rings = of_role(root, "circle", "bound-" + side)
        got = set()
        for ring in rings:
            near = [d for d, x in ticks.items() if abs(x - float(ring.get("cx"))) < 0.01]
            got.add(near[0] if near else None)
            if ring.get("fill") != "none":
                wrong.append((side, ring.get("cx"), "filled"))
        want = {row["d_k"] for row in sweep["rows"] if censored(row[side]["steps_to_90"])}
        for row in sweep["rows"]:
            seen[side].add(censored(row[side]["steps_to_90"]))
            if censored(row[side]["steps_to_90"]) != row[side]["censored"]:
                wrong.append((side, row["d_k"], "the JSON disagrees"))
        expect[side] = want
        if got != want or len(rings) != len(want):
            wrong.append((side, sorted(got, key=str), sorted(want)))
    check(not wrong, "sweep figure: an open ring at exactly the medians that are lower bounds", f"{wrong}")
    check(seen["unscaled"] == {True, False},
          "sweep figure: the case has censored and measured unscaled medians", f"{seen}")
    for side in ("scaled", "unscaled"):
        for curve in of_role(root, "polyline", "curve-" + side):
            for px, py in points(curve):
                near = [d for d, tx in ticks.items() if abs(tx - px) < 0.01]
                if not near or near[0] in expect[side]:
                    wrong.append((side, px, "a lower bound on the line"))
    check(not wrong, "sweep figure: the median lines join only measured medians", f"{wrong}")
    seeds = {side: of_role(root, "circle", "seed-" + side) for side in ("scaled", "unscaled")}
    check(all(len(seeds[s]) == 3 * len(sweep["rows"]) for s in seeds), "sweep figure: a pale point per seed",
          f"{[len(v) for v in seeds.values()]}")
    legend = texts(root, "legend")
    check("a lower bound: a middle seed never reached 90% in 40 steps" in legend and "each seed" in legend,
          "sweep figure: the legend says what the ring and the pale points are", f"{legend}")

    # ---- formats and refusals ------------------------------------------------------
    path = os.path.join(tmp, "train.png")
    status, out, err = run("--train", "lookup", "--steps", "20", "--format", "png", "--output", path,
                           "--size", "800x600")
    data = open(path, "rb").read(24) if os.path.exists(path) else b""
    check(status == 0 and data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (800, 600),
          "--train --format png --output --size", err)
    path = os.path.join(tmp, "sweep.pdf")
    status, out, err = run("--train", "self", "--train-sweep", "--seeds", "1", "--steps", "20", "--format", "pdf",
                           "--output", path)
    check(status == 0 and open(path, "rb").read(5) == b"%PDF-", "--train-sweep --format pdf --output", err)
    master, slave = pty.openpty()
    status, out, err = run("--train", "lookup", "--format", "pdf", stdout=slave)
    os.close(slave)
    os.close(master)
    check(status == 2 and err.count("\n") == 1 and "terminal" in err, "--train --format pdf to a terminal: refused", err)
    status, out, err = run("--train", "lookup", "--size", "800x600", "--format", "json")
    check(status == 2 and err.count("\n") == 1, "--train --size without a figure format: refused", err)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"1..{count}")
sys.exit(1 if failed else 0)
