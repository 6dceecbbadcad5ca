#!/usr/bin/env python3
"""test_cross_numpy.py — cross-attention held out against numpy.

qkv prints a cross-attention problem (m queries, n keys) as JSON; numpy computes
the same stages here, independently, from the problem's own inputs (the file's
Q, K, V, or X_q, X and the W's, its mask and padding; for a random draw, the inputs
qkv printed): S = Q Kᵀ, S' = S / √d_k, A = softmax by rows over the keys each query
sees, O = A V. Every entry must agree to 1e-12 (relative). Usage:
test_cross_numpy.py PATH/TO/qkv (run from the source root). Prints TAP."""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

QKV = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="qkv-cross-numpy-")
atexit.register(shutil.rmtree, TMP, True)
results = []


def check(name, ok, why=""):
    results.append((name, ok, why))


def report(problem_args):
    out = subprocess.run([QKV, "--print", "--format", "json"] + problem_args,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError("qkv %s: exit %d: %s" % (problem_args, out.returncode, out.stderr))
    return json.loads(out.stdout)


def reference(q, k, v, hidden, divisor):
    """The stages in numpy: hidden is m × n booleans (True = the key is hidden)."""
    scores = q @ k.T
    scaled = scores / divisor
    masked = np.where(hidden, -np.inf, scaled)
    top = masked.max(axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(hidden, 0.0, np.exp(masked - top))
    total = e.sum(axis=1, keepdims=True)
    weights = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return scores, scaled, weights, weights @ v


def same(name, printed, expected, masked=None):
    got = np.array([[np.nan if x is None else x for x in row] for row in printed], dtype=float)
    if got.shape != expected.shape:
        check(name, False, "shape %s, expected %s" % (got.shape, expected.shape))
        return
    want = expected.copy()
    if masked is not None:
        want = np.where(masked, np.nan, want)  # qkv writes a masked score as null
    both_nan = np.isnan(got) & np.isnan(want)
    close = np.isclose(got, want, rtol=1e-12, atol=1e-12) | both_nan
    check(name, bool(close.all()), "" if close.all() else "got %s, expected %s" % (got, want))


def hidden_of(problem, m, n):
    hidden = np.zeros((m, n), dtype=bool)
    mask = problem.get("mask", "none")
    if isinstance(mask, list):
        hidden |= np.array(mask, dtype=bool)
    elif mask == "causal":
        hidden |= np.triu(np.ones((m, n), dtype=bool), 1)
    for j in problem.get("padding", []):
        hidden[:, j] = True
    return hidden


def compare(label, problem, printed, q, k, v):
    m, n = q.shape[0], k.shape[0]
    hidden = hidden_of(problem, m, n)
    scores, scaled, weights, output = reference(q, k, v, hidden, np.sqrt(q.shape[1]))
    check(label + ": m and n", printed.get("m") == m and printed["n"] == n,
          "m %s n %s, expected %d %d" % (printed.get("m"), printed["n"], m, n))
    queries = problem.get("query_tokens", ["q%d" % (i + 1) for i in range(m)])
    keys = problem.get("tokens", ["t%d" % (j + 1) for j in range(n)])
    check(label + ": labels", printed.get("query_tokens") == queries and printed["tokens"] == keys)
    same(label + ": scores", printed["scores"], scores, hidden)
    same(label + ": scaled", printed["scaled"], scaled, hidden)
    same(label + ": weights", printed["weights"], weights)
    same(label + ": output", printed["output"], output)
    return weights, output


def from_file(path):
    with open(path, encoding="utf-8") as f:
        problem = json.load(f)
    if "X" in problem:
        x_q, x = np.array(problem["X_q"], float), np.array(problem["X"], float)
        q = x_q @ np.array(problem["W_Q"], float)
        k = x @ np.array(problem["W_K"], float)
        v = x @ np.array(problem["W_V"], float)
    else:
        q, k, v = (np.array(problem[key], float) for key in ("Q", "K", "V"))
    return problem, q, k, v


def main():
    # The shipped sample: a decoder of 3 words reads an encoder of 4.
    problem, q, k, v = from_file("samples/cross-attention.json")
    weights, output = compare("sample", problem, report(["samples/cross-attention.json"]), q, k, v)
    check("sample: each English word looks most at its French word",
          list(weights.argmax(axis=1)) == [0, 2, 3])
    check("sample: the output has the decoder's length", output.shape == (3, 4))

    # A custom m × n mask and a padded key.
    problem, q, k, v = from_file("tests/data/good/cross.json")
    compare("mask and padding", problem, report(["tests/data/good/cross.json"]), q, k, v)

    # The projected form: Q = X_q W_Q from the queries' own sequence.
    projected = {
        "query_tokens": ["a", "b"],
        "X": [[1, 0, 2], [0, 1, -1], [1, 1, 0], [0.5, -2, 1]],
        "X_q": [[2, 1, 0], [-1, 0, 3]],
        "W_Q": [[1, 0], [0, 1], [1, 1]],
        "W_K": [[0.5, 0], [0, 2], [1, -1]],
        "W_V": [[1], [2], [-1]],
    }
    path = os.path.join(TMP, "projected.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(projected, f)
    problem, q, k, v = from_file(path)
    compare("projected", problem, report([path]), q, k, v)

    # Random draws of every shape, m = 1 and n = 1 among them.
    for m, n, d_k, seed in [(1, 5, 3, 1), (4, 1, 2, 2), (3, 7, 4, 3), (6, 2, 1, 4), (5, 5, 3, 5)]:
        printed = report(["--random", "--queries", str(m), "--tokens", str(n), "--dk", str(d_k),
                          "--seed", str(seed)])
        q, k, v = (np.array(printed[key], float) for key in ("Q", "K", "V"))
        compare("random %d x %d" % (m, n), {"query_tokens": printed.get("query_tokens"),
                                             "tokens": printed["tokens"]}, printed, q, k, v)

    for number, (name, ok, why) in enumerate(results, 1):
        print("%s %d - %s%s" % ("ok" if ok else "not ok", number, name, "" if ok else ": " + why))
    print("1..%d" % len(results))
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
