"""Spectrum benchmarks: one Mercer curve μ_0..μ_kmax per call (what a slider move recomputes)."""
from __future__ import annotations

from ntkviz.bench import Result, median_time


def run(repeats: int) -> list[Result]:
    from ntkviz.core.kernels.dotkernel import KernelSpec
    from ntkviz.core.spectra._power_series import _expansion_cached
    from ntkviz.core.spectra.mercer import mercer_spectrum

    def fresh(spec, p, kmax):  # a new kernel: the expansions are recomputed, not cached
        _expansion_cached.cache_clear()
        return mercer_spectrum(spec, p, kmax)

    results = []
    for depth in (2, 5):
        for p in (3, 20):
            spec = KernelSpec("ntk", depth)
            t = median_time(lambda: fresh(spec, p, 200), repeats)
            method = mercer_spectrum(spec, p, 200).method
            results.append(Result(f"spectrum NTK relu L={depth}, p={p}, kmax=200", t, 50e-3,
                                  method))
    spec = KernelSpec("ntk", 5)
    t = median_time(lambda: mercer_spectrum(spec, 20, 200), repeats)
    results.append(Result("  same, kernel unchanged (new p or kmax: cached expansions)", t, None,
                          "report only"))
    report_only = [
        ("spectrum NTK relu L=5, p=3, kmax=2000", KernelSpec("ntk", 5), 3, 2000),
        ("spectrum NTK relu L=3 β=0.01, p=20, kmax=200", KernelSpec("ntk", 3, 0.01), 20, 200),
        ("spectrum NTK relu L=50, p=3, kmax=200", KernelSpec("ntk", 50), 3, 200),
        ("spectrum NTK tanh L=3, p=10, kmax=200", KernelSpec("ntk", 3, 0.0, "tanh"), 10, 200),
        ("spectrum NTK erf L=3, p=10, kmax=200", KernelSpec("ntk", 3, 0.0, "erf"), 10, 200),
        # the slowest case inside the GUI's ranges (was 97 s): Hermite tables of 49 layers
        ("spectrum NTK sigmoid L=50 β=2, p=2, kmax=2000", KernelSpec("ntk", 50, 2.0, "sigmoid"), 2,
         2000),
        ("spectrum NTK sigmoid L=50 β=2, p=2, kmax=200", KernelSpec("ntk", 50, 2.0, "sigmoid"), 2,
         200),
    ]
    for name, spec, p, kmax in report_only:
        t = median_time(lambda: fresh(spec, p, kmax), max(1, min(repeats, 5)))
        method = mercer_spectrum(spec, p, kmax).method
        results.append(Result(name, t, None, f"report only, {method}"))
    spec = KernelSpec("ntk", 50, 2.0, "sigmoid")
    t = median_time(lambda: mercer_spectrum(spec, 2, 2000), max(1, min(repeats, 5)))
    results.append(Result("  same L=50 sigmoid kmax=2000, kernel unchanged (cached expansions)", t,
                          1.0, "aim <= 1 s"))
    return results
