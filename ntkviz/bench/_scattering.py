"""Scattering-transform benchmarks: one digit (the deformation editor's read-out), a batch
(classification and sweeps), and the filter bank built on first use of a grid."""
from __future__ import annotations

import os

from ntkviz.bench import Result, median_cpu_time, median_time


def run(repeats: int) -> list[Result]:
    from ntkviz.core.deformations.digits import load_digits
    from ntkviz.core.scattering import filters, transform

    images, _ = load_digits()
    digit = images[0] / 255.0
    batch = images[:200] / 255.0
    params = transform.ScatteringParams(J=2, L=8, order=2)
    reps = max(repeats, 30)                 # a few ms each: many repeats, stable median
    t = median_time(lambda: transform.scattering_transform(digit, params), reps)
    cpu = median_cpu_time(lambda: transform.scattering_transform(digit, params), reps)
    load = f"load avg {os.getloadavg()[0]:.1f}"
    results = [Result("scattering S_J of one 28×28 digit (J=2, L=8, order 2)", t, 5e-3,
                      f"(CPU time {cpu * 1e3:.2f} ms; {load})")]
    t = median_time(lambda: transform.scattering_transform(batch, params), max(1, min(repeats, 3)))
    results.append(Result("  same, 200 digits at once, per digit", t / len(batch), None, "report only"))

    def build():
        filters._filter_bank.cache_clear()
        filters.filter_bank((36, 36), 2, 8)

    results.append(Result("  filter bank of the padded 36×36 grid, J=2, L=8 (first use)",
                          median_time(build, max(1, min(repeats, 5))), None, "report only"))
    return results
