"""Kernel ridge regression on a subset of a pool, its held-out error and the Arora et al.
certificate, from one eigendecomposition of the subset's Gram matrix.

Conventions. ``K`` is the pool's Gram matrix **normalised to mean diagonal 1**
(``K / (tr K / N)``), so that the ridge δ is relative to the kernel's scale (as in
``ntkviz classify``) and kernels of different scales compare. For a training subset S
(``n`` distinct pool points) and the rest R:

* ``H = K_SS + δ I``; predictions ``F = K_RS H⁻¹ Y_S`` for centred one-hot targets Y; the
  test MSE is ``mean_{r in R} Σ_c (F_rc - Y_rc)²``, the predicted class
  ``argmax_c (F_rc + p_c)`` (``p_c`` the pool's class frequency, added back);
* the certificate of Arora, Du, Hu, Li & Wang (ICML 2019, Thm 5.1),
  ``√(2 YᵀH_A⁻¹Y / n)``, on their scale: ``H_A = H / 2`` has mean diagonal ½ like their
  ``H^∞`` on unit-norm inputs (``H^∞_ii = ½``). Labels: ``YᵀH_A⁻¹Y`` is
  ``tr(Y_Sᵀ H_A⁻¹ Y_S) = Σ_c y_cᵀ H_A⁻¹ y_c``, summed over the centred one-hot columns (for
  two balanced classes this is ``½ yᵀH_A⁻¹y`` of Arora et al.'s ±1 labels y). Reported with
  ``λ_min(H_A)``, their criterion.

``H`` is decomposed once (``eigh``): ``H⁻¹ = U diag(1/w) Uᵀ``. Where ``H`` is numerically
singular (``w_min <= n ε w_max``, or negative), the pseudo-inverse is used instead: the
eigenvalues below that floor are dropped (``pseudo_inverse = True``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntkviz.core.learning.gram_spectrum import EPS

__all__ = ["SubsetFit", "subset_fit"]


@dataclass(frozen=True)
class SubsetFit:
    """One training subset: ``certificate``, ``test_mse`` and ``accuracy`` per target set
    (arrays in the order given), ``lambda_min`` of ``H_A`` and whether the pseudo-inverse
    was used."""

    certificate: np.ndarray
    test_mse: np.ndarray
    accuracy: np.ndarray
    lambda_min: float
    pseudo_inverse: bool


def subset_fit(gram: np.ndarray, train: np.ndarray, ridge: float, targets, classes) -> SubsetFit:
    """Fit on the pool points ``train`` (distinct indices), test on the others.

    Parameters
    ----------
    gram : (N, N) pool Gram matrix normalised to mean diagonal 1 (module docstring).
    train : (n,) distinct indices into the pool, ``1 <= n < N``.
    ridge : δ >= 0.
    targets : sequence of (N, C) centred one-hot target arrays (e.g. true, random labels).
    classes : sequence of (N,) integer class indices 0..C-1, one per target array.
    """
    n_pool = gram.shape[0]
    mask = np.ones(n_pool, dtype=bool)
    mask[train] = False
    rest = np.flatnonzero(mask)
    n = train.shape[0]
    h = gram[np.ix_(train, train)]
    h[np.diag_indices(n)] += ridge
    w, u = np.linalg.eigh(h)
    floor = n * EPS * float(np.max(np.abs(w)))
    singular = bool(w[0] <= floor)
    inv = np.where(w > floor, 1.0 / np.where(w > floor, w, 1.0), 0.0)
    cross = gram[np.ix_(rest, train)]
    cert, mse, acc = [], [], []
    for y, cls in zip(targets, classes):
        coef = u.T @ y[train]
        quad = float(np.sum(inv[:, None] * coef * coef))
        pred = cross @ (u @ (inv[:, None] * coef))
        err = pred - y[rest]
        offset = np.bincount(cls, minlength=y.shape[1])[: y.shape[1]] / n_pool
        cert.append(np.sqrt(2.0 * 2.0 * quad / n))  # H_A = H/2: 2 Yᵀ H_A⁻¹ Y / n = 4 YᵀH⁻¹Y / n
        mse.append(float(np.mean(np.einsum("rc,rc->r", err, err))))
        acc.append(float(np.mean(np.argmax(pred + offset, axis=1) == cls[rest])))
    return SubsetFit(np.array(cert), np.array(mse), np.array(acc), 0.5 * float(w[0]), singular)
