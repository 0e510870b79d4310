"""κ_α at initialisation (ntkviz.core.training.laziness) against independent routes.

‖D²h‖: the closed form (s/√n) max_j σ_max(M_j X) against finite-difference Hessian-vector
products of the explicit Jacobian with an alternating power iteration; ‖Dh‖ against the SVD of
the explicit Jacobian; the laws of κ_α (1/α, m^{-1/2} under NTK scaling, O(1) under mean field).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.training._reference import ref_hessian_norm, ref_jacobian
from ntkviz.core.training.dynamics import TrainConfig, make_setup
from ntkviz.core.training.laziness import FIRST_LAYER_NOTE, hessian_norm, laziness


def slope(x, y) -> float:
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


@pytest.mark.parametrize("dim,samples,init,seed", [
    (2, 7, "symmetric", 0),  # n > d: the d × d route
    (5, 4, "centered", 1),  # n < d: the n × n route
])
def test_hessian_norm_matches_finite_difference_power_iteration(dim, samples, init, seed):
    setup = make_setup(TrainConfig(width=8, samples=samples, dim=dim, seed=seed, init=init,
                                   ntk_scaling=True))
    s = setup.config.scale
    expected = ref_hessian_norm(setup.a0, setup.B0, setup.X_train, s, restarts=6)
    assert hessian_norm(setup.B0, setup.X_train, s) == pytest.approx(expected, rel=1e-7)


def test_hessian_norm_in_blocks_equals_one_block(monkeypatch):
    from ntkviz.core.training import laziness as lz

    rng = np.random.default_rng(4)
    B, X = rng.standard_normal((50, 3)), rng.standard_normal((20, 3))
    whole = hessian_norm(B, X, 0.7)
    monkeypatch.setattr(lz, "_BLOCK_ENTRIES", 9 * 7)  # blocks of 7 neurons
    assert hessian_norm(B, X, 0.7) == whole


def test_jacobian_norm_and_kappa_from_their_definitions():
    cfg = TrainConfig(width=10, samples=6, dim=3, seed=2, ntk_scaling=True)
    setup = make_setup(cfg)
    parts = laziness(setup)
    n = cfg.samples
    J = ref_jacobian(setup.a0, setup.B0, setup.X_train, cfg.scale)
    assert parts.jacobian_norm == pytest.approx(np.linalg.norm(J, 2) / math.sqrt(n), rel=1e-12)
    assert np.all(setup.f0_train == 0.0)  # h(w0) = 0: the first factor is ‖y‖ / α
    assert parts.target_norm == pytest.approx(np.linalg.norm(setup.y_train) / math.sqrt(n), rel=1e-14)
    for alpha in (0.01, 1.0, 300.0):
        expected = parts.target_norm * parts.hessian_norm / (alpha * parts.jacobian_norm**2)
        assert parts.kappa(alpha) == pytest.approx(expected, rel=1e-14)
    assert parts.kappa(1.0) / parts.kappa(1000.0) == pytest.approx(1000.0, rel=1e-12)


def test_frozen_layers():
    """Last layer alone: h is linear in a, the finite-difference Hessian vanishes, κ_α = 0.
    First layer alone: the Hessian vanishes too (piecewise linear in B) but κ_α is not reported."""
    last = make_setup(TrainConfig(width=6, samples=5, dim=3, seed=3, layers="last", init="centered"))
    assert ref_hessian_norm(last.a0, last.B0, last.X_train, 1.0, "last", restarts=2) == 0.0
    assert laziness(last).kappa(1.0) == 0.0
    first = make_setup(TrainConfig(width=6, samples=5, dim=3, seed=3, layers="first"))
    assert ref_hessian_norm(first.a0, first.B0, first.X_train, 1.0, "first", restarts=2) == 0.0
    assert laziness(first).kappa(1.0) is None
    assert "flip" in FIRST_LAYER_NOTE


@pytest.mark.parametrize("scaling,expected,tol", [("ntk", -0.5, 0.1), ("meanfield", 0.0, 0.1)])
def test_kappa_against_width_follows_the_scaling(scaling, expected, tol):
    """E κ ≲ m^{-1/2} + (m α(m))^{-1} with α(m) = α s: m^{-1/2} for s = 1/√m, O(1) for s = 1/m."""
    widths = np.array([100, 1000, 10000])
    kappas = []
    for m in widths:
        values = [laziness(make_setup(TrainConfig(width=int(m), seed=seed, ntk_scaling=scaling == "ntk",
                                                  mean_field=scaling == "meanfield"))).kappa(1.0)
                  for seed in range(3)]
        kappas.append(np.mean(values))
    assert abs(slope(widths, kappas) - expected) <= tol
