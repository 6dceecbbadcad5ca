"""trace_numpy.py — the benchmark's comparison for `qkv --print --format json FILE`:
the same trace (scores, scaled, weights, output and the statistics) of a problem in
qkv's file format, computed with numpy and printed as one JSON object.

    python3 trace_numpy.py FILE

Direct-form problems only (Q, K, V given), with the scale √d_k, "none" or a number,
a temperature, and no mask: what the benchmark's 64-token problem uses. It is a
yardstick, not a second implementation of qkv: it must never be used by qkv itself.
"""
import json
import sys

import numpy as np


def divisor(problem, d_k):
    """What the scores are divided by: τ·√d_k, τ, or τ·(the custom number)."""
    scale = problem.get("scale", "sqrt_dk")
    temperature = float(problem.get("temperature", 1))
    if scale == "sqrt_dk":
        return temperature * np.sqrt(d_k)
    if scale == "none":
        return temperature
    return temperature * float(scale)


def trace(problem):
    """The five stages and the per-row statistics, as qkv's JSON names them."""
    q = np.array(problem["Q"], dtype=float)
    k = np.array(problem["K"], dtype=float)
    v = np.array(problem["V"], dtype=float)
    d = divisor(problem, q.shape[1])
    scores = q @ k.T
    scaled = scores / d
    shifted = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights = shifted / shifted.sum(axis=1, keepdims=True)
    output = weights @ v
    logs = np.log(np.where(weights > 0, weights, 1.0))
    entropy = np.maximum(-(weights * logs).sum(axis=1), 0.0)
    # ‖diag(a) − a aᵀ‖_F per row, from the whole n×n Jacobian of each row.
    jacobians = -weights[:, :, None] * weights[:, None, :]
    diagonal = np.arange(weights.shape[1])
    jacobians[:, diagonal, diagonal] += weights
    jacobian_norm = np.sqrt((jacobians ** 2).sum(axis=(1, 2)))
    rows = [
        {
            "max_weight": float(weights[i].max()),
            "entropy": float(entropy[i]),
            "effective_tokens": float(np.exp(entropy[i])),
            "jacobian_norm": float(jacobian_norm[i]),
        }
        for i in range(weights.shape[0])
    ]
    return {
        "title": problem.get("title"),
        "tokens": problem["tokens"],
        "n": int(q.shape[0]),
        "d_k": int(q.shape[1]),
        "d_v": int(v.shape[1]),
        "divisor": float(d),
        "mask": "none",
        "Q": q.tolist(),
        "K": k.tolist(),
        "V": v.tolist(),
        "scores": scores.tolist(),
        "scaled": scaled.tolist(),
        "weights": weights.tolist(),
        "output": output.tolist(),
        "stats": {"score_variance": float(scaled.var()), "rows": rows},
    }


def main():
    with open(sys.argv[1], encoding="utf-8") as source:
        problem = json.load(source)
    json.dump(trace(problem), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
