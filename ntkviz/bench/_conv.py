"""Benchmarks of the exact conv kernels.

Allocator settings: none changed (default glibc malloc; no MALLOC_* variables
set by ntkviz). The engine allocates its work buffers once per thread and
reuses them, so no multi-megabyte array is created per pair.
"""
from __future__ import annotations

import os
import resource
import time
import tracemalloc

import numpy as np

from ntkviz.bench import Result, median_time
from ntkviz.bench import median_cpu_time as _cpu_median

N_GRAM = 50


def _load() -> str:
    try:
        return f"load avg {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:
        return ""


def _digits(n: int) -> np.ndarray:
    from ntkviz.core.deformations.digits import load_digits

    images, _ = load_digits()
    return images[np.linspace(0, len(images) - 1, n).astype(int)].astype(np.float64) / 255.0


def run(repeats: int) -> list[Result]:
    import numba

    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.core.conv.gram import cross_kernels, gram_matrix, image_norms
    from ntkviz.core.deformations.deform import Deformation, deform_image
    from ntkviz.core.deformations.stability import stability_sweep

    arch = PRESETS["M1"]
    X = _digits(N_GRAM)
    results = []

    # 1. one pair from cached norms, CKN + NTK together, one thread (the single-pair path is serial)
    nx, ny = image_norms(X[0], arch), image_norms(X[1], arch)
    pair = lambda: cross_kernels(nx, ny, arch)  # noqa: E731
    t_pair = median_time(pair, max(repeats, 100))       # ~2.5 ms each: many repeats, stable median
    cpu = _cpu_median(pair, max(repeats, 100))
    results.append(Result("M1 pair, cached norms, CKN+NTK, float64, 1 thread", t_pair, 3e-3,
                          note=f"(thread CPU {cpu * 1e3:.2f} ms; {_load()})"))

    # 2. 50 x 50 NTK Gram on 2 threads (norms included), peak memory
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        gram_matrix(X[:3], arch, "ntk")                     # compile / load
        tracemalloc.start()
        t_gram = median_time(lambda: gram_matrix(X, arch, "ntk"), max(1, min(repeats, 3)), warmup=0)
        _cur, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        numba.set_num_threads(old)
    results.append(Result(f"M1 NTK Gram {N_GRAM}x{N_GRAM}, {threads} threads (incl. norms)", t_gram, 3.5,
                          note=f"({_load()}; allocator: default glibc malloc, no MALLOC_* settings)"))
    results.append(Result("  Gram run: peak traced allocation (tracemalloc)", peak / 2**20, None,
                          unit="MiB", note="numpy arrays incl. per-thread buffers"))
    results.append(Result("  process peak RSS so far (getrusage)", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                          / 1024, None, unit="MiB"))

    # 3. live update: warp a digit, its norms, cross kernel with the cached original
    ref = image_norms(X[7], arch)
    angles = iter(np.linspace(1.0, 30.0, 10_000))

    def live():
        y, _tau = deform_image(X[7], Deformation(rotation_deg=float(next(angles)), smooth_amplitude=0.5))
        cross_kernels(ref, image_norms(y, arch), arch)

    t_live = median_time(live, max(repeats, 30))
    cpu = _cpu_median(live, max(repeats, 30))
    results.append(Result("live update: warp 28x28 + norms + cross (CKN+NTK)", t_live, 10e-3,
                          note=f"(thread CPU {cpu * 1e3:.2f} ms; {_load()})"))

    # 4. default stability sweep (as `ntkviz stability` defaults)
    from ntkviz.core.deformations.digits import digit_indices, load_digits

    images, labels = load_digits()
    idx = [digit_indices(d % 10)[d // 10] for d in range(5)]
    ref_idx = [digit_indices(k)[99 - r] for k in range(10) for r in range(2)]

    def sweep():
        for _ in stability_sweep(images[idx] / 255.0, labels[idx], arch, "smooth", [0.01, 0.03, 0.1, 0.3, 1, 3], 1,
                                 images[ref_idx] / 255.0, labels[ref_idx]):
            pass

    t0 = time.perf_counter()
    sweep()
    results.append(Result("default stability sweep (M1, 5 digits x 6 amplitudes x 1 seed, 20 refs)",
                          time.perf_counter() - t0, None, note="single run"))
    return results
