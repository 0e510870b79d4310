"""RKHS norms, bounded-norm approximation, GP samples and Funk–Hecke partial sums."""
import math

import numpy as np
import pytest

from ntkviz.core import KernelSpec, evaluate_kernel, kernel_at_one, mercer_spectrum
from ntkviz.core.learning import (Target, approximation_error, funk_hecke_partial_sums,
                                  gp_samples_on_circle, rkhs_norm, spectrum_weights)


@pytest.mark.parametrize("spec,p", [(KernelSpec("nngp", depth=3), 4), (KernelSpec("arccos1"), 3)])
def test_rkhs_norm_of_kernel_section_is_kappa_one(spec, p):
    # k(·, z) = κ(⟨·, z⟩) has Funk–Hecke coefficient a_k = μ_k, i.e. components c_k = N μ_k;
    # ‖k(·, z)‖²_H = k(z, z) = κ(1) (reproducing property), evaluated directly by the kernel
    kmax = 300
    sp = mercer_spectrum(spec, p, kmax)
    w, _ = spectrum_weights(sp)
    comps = tuple((k, float(w[k])) for k in range(kmax + 1) if w[k] > 1e-300)
    norm = rkhs_norm(sp, Target(components=comps).projection(p, kmax))
    tail = kernel_at_one(spec) - w.sum()
    assert not norm.zero_degrees and tail < 1e-3
    assert norm.squared == pytest.approx(kernel_at_one(spec) - tail, rel=1e-9)


def test_rkhs_norm_infinite_on_exact_zero():
    sp = mercer_spectrum(KernelSpec("ntk"), 3, 50)
    norm = rkhs_norm(sp, Target(components=((1, 1.0), (5, 1.0))).projection(3, 50))
    assert math.isinf(norm.squared) and norm.zero_degrees == (5,)


def test_approximation_error_limits():
    sp = mercer_spectrum(KernelSpec("ntk", depth=3), 3, 200)
    pr = Target(components=((1, 1.0), (4, 0.5))).projection(3, 200)
    norm = rkhs_norm(sp, pr)
    err = approximation_error(sp, pr, [0.0, 0.1 * math.sqrt(norm.squared), 1.0001 * math.sqrt(norm.squared)])
    assert err[0] == pytest.approx(pr.total_power)
    assert 0 < err[1] < err[0] and err[2] == 0.0
    # one degree: g = s f with s = B/‖f‖_H, error (1 - s)² P
    pr1 = Target(components=((2, 1.0),)).projection(3, 200)
    nf = math.sqrt(rkhs_norm(sp, pr1).squared)
    assert approximation_error(sp, pr1, [0.3 * nf])[0] == pytest.approx(0.49 * pr1.total_power, rel=1e-9)


def test_gp_sample_covariance_matches_kernel():
    spec = KernelSpec("ntk", depth=3)
    samples = np.vstack([gp_samples_on_circle(spec, 50, 64, seed)[1] for seed in range(40)])
    theta = 2 * np.pi * np.arange(64) / 64
    emp = np.array([np.mean(samples[:, 0] * samples[:, j]) for j in range(64)])
    exact = evaluate_kernel(spec, np.cos(theta))[0]
    # 2000 samples: standard error of a covariance <= sqrt(2) κ(1)/sqrt(2000)
    assert np.max(np.abs(emp - exact)) < 5 * math.sqrt(2) * kernel_at_one(spec) / math.sqrt(2000)


def test_partial_sums_rebuild_kernel():
    spec = KernelSpec("arccos1")
    u = np.linspace(-0.95, 0.95, 39)
    sp = mercer_spectrum(spec, 5, 400)
    sums = funk_hecke_partial_sums(sp, u, [0, 10, 400])
    exact = evaluate_kernel(spec, u)[0]
    err = np.abs(sums - exact).max(axis=1)
    assert err[2] < 1e-6 and err[2] < err[1] < err[0]
