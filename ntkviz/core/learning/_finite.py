"""Eigenlearning on a finite spectrum: the prediction of kernel ridge regression on a pool.

The eigenlearning / omniscient-risk equations (Bordelon, Canatar & Pehlevan 2020; Simon et
al. 2021; Jacot et al. 2020) written for a finite list of operator eigenvalues ``μ_i``
(each of multiplicity one) and target powers ``P_i``; the same solver as the sphere's
:func:`ntkviz.core.learning.learning_theory` with ``w_i = μ_i``. Estimator
``f̂ = K(x, X)(K(X, X) + δ I)⁻¹ y`` on ``n`` samples, δ not multiplied by n:

* effective ridge ``κ > 0`` solves ``n = Σ_i μ_i/(μ_i + κ) + δ/κ`` (with δ = 0 a root exists
  only for ``n`` below the number of positive ``μ_i``; other ``n`` give NaN; eigenvalues
  below ``1e-150 max μ`` count as 0);
* ``L_i = μ_i/(μ_i + κ)``, ``E0 = n/(n - Σ_i L_i²)``;
* population test MSE ``E0 Σ_i (1 - L_i)² P_i`` (the target holds all of the label, so
  no separate noise term), train MSE ``(δ/(n κ))²`` times it.

On a pool. With the pool's empirical measure as the distribution (``μ_i = λ_i(K)/N``,
eigenfunctions ``√N v_i``, a target y on the pool has powers ``P_i = (v_iᵀ y)²/N`` summed
over target columns), the population error is the mean over all N pool points. When the n
training points are distinct pool points, the error on the other ``N - n`` points follows
exactly from the population and training errors:
``held-out = (N · population - n · train) / (N - n)``; this is the number to compare with
KRR trained on n points of the pool and tested on the rest.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntkviz._check import check_float, check_int
from ntkviz.core.learning._theory import _solve_kappa, _sums

__all__ = ["FiniteTheory", "finite_learning_theory"]


@dataclass(frozen=True)
class FiniteTheory:
    """Eigenlearning on a finite spectrum at each ``n`` (NaN where no κ exists).

    ``heldout_mse`` is the error on the pool's other points (module docstring), NaN
    without a pool size."""

    n: np.ndarray
    effective_ridge: np.ndarray
    e0: np.ndarray
    test_mse: np.ndarray
    train_mse: np.ndarray
    heldout_mse: np.ndarray


def finite_learning_theory(eigenvalues, power, n_values, ridge: float,
                           pool_size: int | None = None) -> FiniteTheory:
    """Eigenlearning prediction for operator eigenvalues ``eigenvalues`` (>= 0; pass 0 for
    values not to trust) and target powers ``power`` (>= 0, same length) at each ``n``.

    ``ridge`` is δ >= 0 (not multiplied by n); ``pool_size`` N, when the distribution is the
    empirical measure of N pool points, adds the held-out error for ``n < N``.
    """
    mu = np.ascontiguousarray(eigenvalues, dtype=np.float64)
    pw = np.ascontiguousarray(power, dtype=np.float64)
    if mu.ndim != 1 or pw.shape != mu.shape or mu.size == 0:
        raise ValueError(f"eigenvalues and power must be 1-D arrays of one length, got shapes "
                         f"{mu.shape} and {pw.shape}")
    if not (np.all(np.isfinite(mu)) and np.all(mu >= 0) and np.all(np.isfinite(pw)) and np.all(pw >= 0)):
        raise ValueError("eigenvalues and power must be finite and >= 0")
    delta = check_float("ridge", ridge, (0.0, None))
    n_arr = np.ascontiguousarray(n_values, dtype=np.float64)
    if n_arr.ndim != 1 or n_arr.size == 0 or not np.all((n_arr >= 1) & np.isfinite(n_arr)):
        raise ValueError("n_values must be a non-empty list of numbers >= 1")
    # scale invariance (μ, δ, κ) -> (μ, δ, κ)/s with s = max μ keeps the solver's sums in range;
    # eigenvalues below 1e-150 of the largest count as 0 (never learned: their power stays in the bias)
    scale = float(mu.max()) if mu.max() > 0 else 1.0
    keep = mu > 1e-150 * scale
    mu_k = np.ascontiguousarray(mu[keep] / scale)
    unlearned = float(pw[~keep].sum())
    solvable = n_arr < mu_k.size if delta == 0.0 else np.ones(n_arr.shape, dtype=bool)
    kap = np.full(n_arr.shape, np.nan)
    nl2 = np.full(n_arr.shape, np.nan)
    bias = np.full(n_arr.shape, np.nan)
    if solvable.any():
        ns = np.ascontiguousarray(n_arr[solvable])
        k_s, a_s, b_s = np.empty_like(ns), np.empty_like(ns), np.empty_like(ns)
        _solve_kappa(ns, mu_k, mu_k, delta / scale, k_s)
        _sums(k_s, mu_k, mu_k, np.ascontiguousarray(pw[keep]), a_s, b_s)
        kap[solvable], nl2[solvable], bias[solvable] = k_s * scale, a_s, b_s + unlearned
    with np.errstate(divide="ignore", invalid="ignore"):
        e0 = n_arr / (n_arr - nl2)
        test = e0 * bias
        train = (delta / (n_arr * kap)) ** 2 * test
        heldout = np.full(n_arr.shape, np.nan)
        if pool_size is not None:
            pool = check_int("pool_size", pool_size, (2, None))
            inside = n_arr < pool
            heldout[inside] = ((pool * test - n_arr * train) / (pool - n_arr))[inside]
    return FiniteTheory(n_arr, kap, e0, test, train, heldout)
