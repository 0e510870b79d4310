r"""Training the last layer alone: the network is a random-features model, solved in closed form.

With the input weights frozen at initialisation, the trained model of
:mod:`ntkviz.core.training.dynamics` is linear in the output weights:

.. math:: \alpha h(x) = \alpha s \sum_j (a_j - a_{0j})\,\sigma(b_{0j}\cdot x) = \Phi(x)\,v,
          \qquad \Phi_{ij} = s\,\sigma(b_{0j}\cdot x_i),\quad v = \alpha (a - a_0),

with :math:`\Phi` the n × m feature matrix scaled as the network's output (s = 1, 1/√m or
1/m). The ridge fit solves

.. math:: \min_v \|\Phi v - y\|^2 + \delta \|v\|^2, \qquad
          v = \Phi^\top(\Phi\Phi^\top + \delta I)^{-1} y = V\,\mathrm{diag}
          \Big(\frac{\sigma_k}{\sigma_k^2 + \delta}\Big) U^\top y

(δ not multiplied by n, as in ``ntkviz learn``; δ = 0 is the minimum-norm least-squares
solution, the limit of gradient descent from v = 0). The predictor does not depend on α; α
only sets the displacement ‖a − a₀‖ = ‖v‖/α.

As m → ∞, :math:`\Phi\Phi^\top \to K_\infty = \frac{m s^2}{2}\kappa_1(x\cdot x')` (for
:math:`b \sim \mathcal N(0, I_d)` and unit inputs, :math:`\mathbb E\,\sigma(b\cdot x)\sigma(b\cdot
x') = \kappa_1(u)/2`: the degree-1 arc-cosine kernel, i.e. the ReLU NNGP of a bias-free first
layer), so the fit tends to kernel ridge regression :math:`K_\infty(x, X)(K_\infty + \delta
I)^{-1} y` (:func:`kernel_ridge`) on the same data. Between the two, with label noise and a
small ridge, the test error peaks at the interpolation threshold m = n where Φ is square and
ill-conditioned (double descent).

On the circle (d = 2) the bias-free ReLU features :math:`\sigma(\cos(\theta - \varphi))`
contain only the Fourier modes 0, 1 and the even ones, with weights falling like
:math:`1/(k^2 - 1)` (:data:`CIRCLE_NOTE`): the singular values of Φ fall fast for every m (at
n = 100 about 30 exceed 10⁻³ σ_max, at m = n as at m = 32n), the threshold m = n is not sharp
and there is no peak there.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["feature_matrix", "ridge_weights", "kernel_ridge", "RidgeFit", "fit_last_layer",
           "CIRCLE_NOTE"]

#: why there is no double-descent peak on the circle
CIRCLE_NOTE = (
    "on the circle (d = 2) bias-free ReLU features σ(b·x) = |b| max(cos(θ − φ), 0) hold only the "
    "Fourier modes 0, 1 and the even ones, with weights falling like 1/(k² − 1): the singular "
    "values of the n × m feature matrix fall fast whatever m, so m = n is no sharp interpolation "
    "threshold and there is no double-descent peak (take a higher d, e.g. 10)")

#: singular values below this fraction of the largest count as zero in the ridgeless fit
_RCOND = 1e-13


def feature_matrix(B0, X, scale: float) -> np.ndarray:
    """Φ_ij = s σ(b_j·x_i): the random features of the rows of ``X`` (n × m)."""
    return scale * np.maximum(np.asarray(X, dtype=np.float64) @ np.asarray(B0, dtype=np.float64).T,
                              0.0)


def ridge_weights(features, targets, ridge: float) -> np.ndarray:
    """argmin_v ‖Φ v − y‖² + δ‖v‖² through the thin SVD Φ = U diag(σ) Vᵀ: v = V (σ/(σ² + δ)) Uᵀy;
    with δ = 0 the minimum-norm least-squares solution (σ below 1e-13 σ_max dropped)."""
    U, sv, Vt = np.linalg.svd(np.asarray(features, dtype=np.float64), full_matrices=False)
    if ridge > 0.0:
        gain = sv / (sv * sv + ridge)
    else:
        keep = sv > _RCOND * sv.max(initial=0.0)
        gain = np.where(keep, 1.0 / np.where(keep, sv, 1.0), 0.0)
    return Vt.T @ (gain * (U.T @ np.asarray(targets, dtype=np.float64)))


def kernel_ridge(kernel_train, kernel_cross, targets, ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """Kernel ridge regression f = K_× (K + δ I)⁻¹ y at the training and the cross inputs.

    One eigendecomposition of the symmetric K; eigenvalues are clipped at 0, and with δ = 0 those
    below n·λ_max·1e-13 count as 0 (the ridgeless limit K_× K⁺ y, as the kernel flows of
    :mod:`~ntkviz.core.training.dynamics` reach for t → ∞)."""
    K = np.asarray(kernel_train, dtype=np.float64)
    n = K.shape[0]
    lam, V = np.linalg.eigh(0.5 * (K + K.T))
    lam = np.maximum(lam, 0.0)
    denom = lam + ridge
    live = denom > (n * lam.max(initial=0.0) * 1e-13 if ridge == 0.0 else 0.0)
    coeff = np.where(live, (V.T @ np.asarray(targets, dtype=np.float64)) / np.where(live, denom, 1.0),
                     0.0)
    dual = V @ coeff  # (K + δI)⁻¹ y
    return K @ dual, np.asarray(kernel_cross, dtype=np.float64) @ dual


@dataclass(frozen=True, eq=False)
class RidgeFit:
    """The closed-form last layer of one set-up: ``weights`` v = α(a − a₀) (m,), the predictor Φv
    at the training inputs (``train``) and at the evaluation inputs (``evaluation``), and kernel
    ridge regression with the infinite-width kernel at the same inputs (``kernel_train``,
    ``kernel_evaluation``)."""

    weights: np.ndarray
    train: np.ndarray
    evaluation: np.ndarray
    kernel_train: np.ndarray
    kernel_evaluation: np.ndarray


def fit_last_layer(setup, ridge: float) -> RidgeFit:
    """Ridge fit of the output weights of a :class:`~ntkviz.core.training.dynamics.TrainSetup`
    (its input weights B₀, scale s, data and noisy targets), beside kernel ridge regression with
    its infinite-width kernel ``setup.ntk`` (for the last layer: (m s²/2) κ₁)."""
    cfg = setup.config
    if cfg.layers != "last":
        raise ValueError(f"the closed-form ridge fit trains the last layer alone (layers='last'), "
                         f"got layers={cfg.layers!r}")
    s = cfg.scale
    phi = feature_matrix(setup.B0, setup.X_train, s)
    v = ridge_weights(phi, setup.y_train, ridge)
    k_train, k_eval = kernel_ridge(setup.ntk, setup.ntk_eval, setup.y_train, ridge)
    X_eval = setup.X_eval
    rows = max(1, _EVAL_ENTRIES // max(v.size, 1))  # evaluation inputs per block of features
    evaluation = np.concatenate([feature_matrix(setup.B0, X_eval[i:i + rows], s) @ v
                                 for i in range(0, X_eval.shape[0], rows)])
    return RidgeFit(weights=v, train=phi @ v, evaluation=evaluation, kernel_train=k_train,
                    kernel_evaluation=k_eval)


#: largest evaluation feature block held at once by :func:`fit_last_layer` (entries)
_EVAL_ENTRIES = 1 << 22
