"""Benchmarks of the generalisation theory and Monte-Carlo: ``python -m ntkviz.bench learning``.

* eigenlearning theory for 200 values of n and two kernels (NTK L=2, NNGP L=3), p = 3 and
  p = 100, kmax = 1000, after the spectra (target <= 20 ms);
* Monte-Carlo KRR, NTK, p = 10, n = 2000, 10 seeds, 2000 test points (target <= 3 s).
"""
from __future__ import annotations

import numpy as np

from ntkviz.bench import Result, median_time

__all__ = ["run"]


def run(repeats: int) -> list[Result]:
    from ntkviz.core import KernelSpec, kernel_at_one, mercer_spectrum
    from ntkviz.core.learning import Target, learning_theory
    from ntkviz.jobs import LearningMonteCarloRequest

    results = []
    specs = (KernelSpec("ntk"), KernelSpec("nngp", depth=3))
    ns = np.unique(np.geomspace(10, 1e6, 200).astype(int))
    target = Target()
    for p in (3, 100):
        spectra = [mercer_spectrum(s, p, 1000) for s in specs]
        proj = target.projection(p, 1000)
        at_one = [kernel_at_one(s) for s in specs]

        def theory():
            for sp, a1 in zip(spectra, at_one):
                learning_theory(sp, a1, proj.power, proj.tail_power, ns, 1e-3, 0.1)

        results.append(Result(f"learning theory, 200 n, 2 kernels, p={p}, kmax=1000",
                              median_time(theory, repeats), 20e-3, "after the spectra"))
    mc = LearningMonteCarloRequest((KernelSpec("ntk"),), target, dim=10, n_values=(2000,), seeds=10,
                                   n_test=2000, kmax=200)
    results.append(Result("Monte-Carlo KRR NTK p=10, n=2000, 10 seeds, 2000 test",
                          median_time(mc, max(1, min(repeats, 3)), warmup=0), 3.0, ""))
    return results
