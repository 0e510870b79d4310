r"""Lazy ↔ rich sweeps: one training run per output scale α, width m and seed, summarised.

Every point trains the network of :mod:`ntkviz.core.training.dynamics` to the fixed time
t = ``lr``·``steps`` with the same step-size rule as a single run (the same ``lr`` for every α
on the α⁻²-scaled objective) and records the quantities of :data:`SWEEP_METRICS` at t, beside
κ_α at initialisation (:mod:`~ntkviz.core.training.laziness`). Training the last layer alone
with a ridge δ solves it in closed form instead (:mod:`~ntkviz.core.training.random_features`).

Scalings of the width (the output factor α(m) = α·s of Chizat, Oyallon & Bach's
Φ = α(m) Σ_j b_j ρ(w_jᵀx), :data:`SCALINGS`)
    ``ntk``: s = 1/√m and the same step for every m (the tangent kernel K₀ ≈ (m s²/2) κ is
    O(1)); ‖w − w₀‖ = O(1/α) while ‖w₀‖ ∝ √m, so ‖w − w₀‖/‖w₀‖ falls like m^{−1/2}, and
    κ_α ≲ (m α s)^{-1} ∝ m^{-1/2}: lazy as m → ∞.
    ``meanfield``: s = 1/m and gradient steps of ``lr``·m (Chizat & Bach 2018: the particle
    gradient flow u_j' = −m ∇_{u_j}F reaches the Wasserstein gradient flow of the mean-field
    limit; with a fixed step the O(1/m) gradients would not move anything as m grows). Each
    neuron moves O(1): ‖w − w₀‖/‖w₀‖ does not vanish and κ_α ∝ (m α s)^{-1} = 1/α stays O(1).
    ``none``: s = 1 (the paper's Fig. 1 set-up, the single-run tab's default) with the step as
    given; K₀ grows like m, so a wide net needs a step below 2n/λ_max(K₀).

In every scaling the kernel flow runs in the time of the steps taken, so ``test_loss_kernel``
is the same flow (kernel m·K_∞ = κ/2 under the mean-field steps, K_∞ = κ/2 under NTK).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generator

import numpy as np

from ntkviz.core.training._train_config import TrainConfig

__all__ = ["SCALINGS", "DEFAULT_ALPHAS", "GAP_THRESHOLD", "SWEEP_METRICS", "PROGRESS_STEPS",
           "sweep_config", "Prepared", "prepare", "SweepPoint", "measure", "Crossover", "crossover",
           "relative_gap", "loglog_slope"]

#: output scalings of the width: NTK 1/√m, mean field 1/m (steps ×m), none (s = 1)
SCALINGS = ("ntk", "meanfield", "none")
#: the default α grid: 13 values, two per decade from 10⁻² (rich) to 10⁴ (lazy)
DEFAULT_ALPHAS = tuple(float(f"{a:.6g}") for a in np.logspace(-2.0, 4.0, 13))
#: relative gap |L_net − L_lin|/L_lin of the test losses that defines the crossover α*
GAP_THRESHOLD = 0.1
#: a run reports progress (and can be stopped) at least every this many gradient steps
PROGRESS_STEPS = 2000

#: measured quantities of a sweep point (CSV columns; each also gets a ``_sem`` column)
SWEEP_METRICS: dict[str, str] = {
    "test_loss_net": "test loss (1/2) mean (alpha h - f*)^2 of the net at time t, against the "
                     "noiseless teacher f*",
    "test_loss_linear": "test loss of the linearised model alpha Dh(w0)(w - w0) trained alongside "
                        "(empty for the closed-form last layer)",
    "test_loss_kernel": "test loss of the infinite-width tangent kernel of the trained layers: its "
                        "gradient flow at time t, or kernel ridge regression with the same ridge",
    "train_loss_net": "train loss (1/2n) sum (alpha h - y)^2 of the net (noisy targets)",
    "displacement": "||w - w0|| / ||w0|| over the trained weights",
    "kernel_drift": "||K_t - K_0||_F / ||K_0||_F, empirical tangent kernel of the trained layers",
    "flip_share": "share of (training input, neuron) ReLU patterns changed since initialisation",
    "kappa_alpha": "laziness (1/alpha)||alpha h(w0) - y|| ||D^2 h(w0)|| / ||D h(w0)||^2 at "
                   "initialisation (empty when only the first layer trains)",
}


def sweep_config(alpha: float, width: int, seed: int, *, scaling: str = "ntk", layers: str = "all",
                 init: str = "symmetric", dim: int = 2, samples: int = 15, teacher: int = 3,
                 noise: float = 0.0, lr: float = 0.005, steps: int = 10000) -> TrainConfig:
    """The validated :class:`TrainConfig` of one sweep point: ``scaling`` (one of
    :data:`SCALINGS`) sets the output factor and the step; frames every ``PROGRESS_STEPS``
    steps (evenly spaced), the last at t = ``lr``·``steps``."""
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {', '.join(SCALINGS)}; got {scaling!r}")
    return TrainConfig(
        alpha=alpha, width=width, samples=samples, teacher=teacher, lr=lr, steps=steps,
        frames=max(1, math.ceil(steps / PROGRESS_STEPS)), seed=seed, dim=dim,
        ntk_scaling=scaling == "ntk", mean_field=scaling == "meanfield", log_time=False,
        init=init, layers=layers, noise=noise)


@dataclass(frozen=True, eq=False)
class Prepared:
    """What every α of one (width, seed) shares: the draws and kernels (``setup``), the parts of
    κ_α (``laziness``) and, for the closed-form last layer, the ridge fit (``fit``)."""

    setup: object
    laziness: object
    fit: object = None


def prepare(config: TrainConfig, ridge: float | None = None) -> Prepared:
    """Draw and precompute for ``config`` (any α): :func:`make_setup`, :func:`laziness` and, with
    ``ridge`` (last layer only), :func:`fit_last_layer`."""
    from ntkviz.core.training.dynamics import make_setup
    from ntkviz.core.training.laziness import laziness
    from ntkviz.core.training.random_features import fit_last_layer

    setup = make_setup(config)
    fit = None if ridge is None else fit_last_layer(setup, ridge)
    return Prepared(setup, laziness(setup), fit)


@dataclass(frozen=True)
class SweepPoint:
    """One run's :data:`SWEEP_METRICS` (NaN where a quantity does not apply, and everywhere when
    the run ``diverged``; ``message`` says what happened)."""

    metrics: dict
    diverged: bool = False
    message: str = ""


def _half_mean_square(pred, target) -> float:
    diff = np.asarray(pred) - np.asarray(target)
    return 0.5 * float(np.dot(diff, diff)) / diff.size


def measure(config: TrainConfig, prepared: Prepared) -> Generator[float, None, SweepPoint]:
    """Train (or solve) one sweep point; a generator yielding the run's progress in (0, 1) every
    ``PROGRESS_STEPS`` steps or so before its end (stop iterating to cancel) and *returning* the
    :class:`SweepPoint`. ``prepared`` must come from :func:`prepare` with the same draws (any α)."""
    from ntkviz.core.training.dynamics import train_frames

    setup = prepared.setup
    kappa = prepared.laziness.kappa(config.alpha)
    kappa = math.nan if kappa is None else kappa
    if prepared.fit is not None:
        return _closed_form_point(config, prepared, kappa)
    last = None
    for item in train_frames(config, setup):
        if item.diverged:
            return SweepPoint(dict.fromkeys(SWEEP_METRICS, math.nan), True, item.message)
        last = item.frame
        if 0 < item.index and not item.done:  # progress inside the run (its end is the caller's)
            yield item.fraction
    m = last.metrics
    return SweepPoint({
        "test_loss_net": m["test_loss"], "test_loss_linear": m["linear_test_loss"],
        "test_loss_kernel": m["ntk_test_loss"], "train_loss_net": m["train_loss"],
        "displacement": m["relative_displacement"], "kernel_drift": m["kernel_drift"],
        "flip_share": m["flip_share"], "kappa_alpha": kappa})


def _closed_form_point(config: TrainConfig, prepared: Prepared, kappa: float) -> SweepPoint:
    """The ridge-fitted last layer: B stays at B₀ (no kernel drift, no flips: true zeros), a =
    a₀ + v/α; there is no separate linearisation (the model is linear)."""
    setup, fit = prepared.setup, prepared.fit
    test = setup.test
    a0_norm = float(np.linalg.norm(setup.a0))
    return SweepPoint({
        "test_loss_net": _half_mean_square(fit.evaluation[test], setup.y_eval[test]),
        "test_loss_linear": math.nan,
        "test_loss_kernel": _half_mean_square(fit.kernel_evaluation[test], setup.y_eval[test]),
        "train_loss_net": _half_mean_square(fit.train, setup.y_train),
        "displacement": float(np.linalg.norm(fit.weights)) / (config.alpha * a0_norm),
        "kernel_drift": 0.0, "flip_share": 0.0, "kappa_alpha": kappa})


def relative_gap(net, linear) -> np.ndarray:
    """|L_net − L_lin| / L_lin, elementwise (NaN where either is missing)."""
    net, linear = np.asarray(net, dtype=float), np.asarray(linear, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.abs(net - linear) / linear


@dataclass(frozen=True)
class Crossover:
    """The crossover scale ``alpha`` (NaN when the grid does not bracket it; ``note`` says why)."""

    alpha: float
    note: str = ""


def crossover(alphas, net, linear, threshold: float = GAP_THRESHOLD) -> Crossover:
    r"""α* where the test losses of the net and of its linearisation separate by ``threshold``.

    With g(α) = |L_net − L_lin|/L_lin (:func:`relative_gap`) on the grid (missing points
    skipped), the scan starts at the lazy end (largest α) and stops at the first α_k with
    g(α_k) ≥ threshold; α* interpolates between α_k and its larger neighbour α_{k+1}
    linearly in (log α, log g) — in (log α, g) if g(α_{k+1}) = 0 — so
    g(α*) = threshold. Above α* the net is within ``threshold`` of its linearisation (lazy)."""
    alphas = np.asarray(alphas, dtype=float)
    order = np.argsort(alphas)
    gap = relative_gap(net, linear)[order]
    alphas = alphas[order]
    ok = np.isfinite(gap)
    alphas, gap = alphas[ok], gap[ok]
    if alphas.size == 0:
        return Crossover(math.nan, "no finished runs with both losses")
    if gap[-1] >= threshold:
        return Crossover(math.nan, f"the net and its linearisation differ by ≥ {threshold:.0%} "
                                   f"up to the largest α = {alphas[-1]:g}: α* lies above the grid")
    for k in range(alphas.size - 2, -1, -1):
        if gap[k] >= threshold:
            lo, hi = gap[k], gap[k + 1]
            x0, x1 = math.log(alphas[k]), math.log(alphas[k + 1])
            if hi > 0.0:
                frac = (math.log(threshold) - math.log(lo)) / (math.log(hi) - math.log(lo))
            else:
                frac = (threshold - lo) / (hi - lo)
            return Crossover(math.exp(x0 + frac * (x1 - x0)))
    return Crossover(math.nan, f"the net stays within {threshold:.0%} of its linearisation down "
                               f"to the smallest α = {alphas[0]:g}: α* lies below the grid")


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x over the points where both are finite and
    positive (NaN with fewer than two)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])
