"""Kernel-curve benchmarks: 2001-point curves (ReLU NTK at depth 2, 10, 50; tanh), empirical overlay."""
from __future__ import annotations

import os

import numpy as np

from ntkviz.bench import Result, median_cpu_time, median_time

GRID = 2001


def run(repeats: int) -> list[Result]:
    from ntkviz.core.kernels.dotkernel import KernelSpec, evaluate_kernel
    from ntkviz.core.kernels.empirical import empirical_kernels

    u = np.linspace(-1.0, 1.0, GRID)
    results = []
    for depth in (2, 10, 50):
        spec = KernelSpec("ntk", depth)
        t = median_time(lambda: evaluate_kernel(spec, u), repeats)
        cpu = median_cpu_time(lambda: evaluate_kernel(spec, u), repeats)
        results.append(Result(f"kernel curve NTK relu L={depth}, {GRID} points", t, 5e-3,
                              f"(CPU time {cpu * 1e3:.2f} ms; load avg {os.getloadavg()[0]:.1f})"))
    spec = KernelSpec("ntk", 10, activation="tanh")
    t = median_time(lambda: evaluate_kernel(spec, u), repeats)
    results.append(Result(f"kernel curve NTK tanh L=10, {GRID} points", t, None, "report only"))
    # a new bias (slider move) rebuilds the tanh Hermite tables: first call after a change
    biases = iter(np.linspace(0.01, 1.0, 10 * (repeats + 1)))
    t = median_time(lambda: evaluate_kernel(KernelSpec("ntk", 10, next(biases), "tanh"), u), repeats)
    results.append(Result("  same, new bias each call (tables rebuilt)", t, None, "report only"))
    cos = np.linspace(-1.0, 1.0, 201)
    for width, depth, coupling in ((4096, 5, "pairwise"), (4096, 5, "independent"), (1024, 3, "shared")):
        t = median_time(lambda: empirical_kernels(cos, width, depth, coupling=coupling),
                        max(1, min(repeats, 3)))
        results.append(Result(f"empirical NTK+NNGP m={width} L={depth}, 201 cosines ({coupling})", t,
                              None, "report only, 1 network"))
    return results


