r"""The laziness κ_α of a two-layer ReLU network at initialisation (Chizat, Oyallon & Bach 2019).

.. math::

    \kappa_\alpha(w_0) = \frac{1}{\alpha}\,\|\alpha h(w_0) - y^*\|\,
                         \frac{\|D^2h(w_0)\|}{\|Dh(w_0)\|^2}

for the model :math:`h = f - f(w_0)` of :mod:`ntkviz.core.training.dynamics` (so
:math:`h(w_0) = 0` by construction, with either initialisation) and the training targets
:math:`y^*` (noisy when the run adds label noise). When κ_α ≪ 1 gradient descent stays close to
the linearised model; κ_α falls like 1/α at fixed width, like m^{-1/2} under the NTK
scaling α(m) ∝ 1/√m and stays of order one under the mean-field scaling α(m) ∝ 1/m.

Norms
-----
* functions: the empirical :math:`L^2` norm over the n training inputs,
  :math:`\|g\|^2 = \frac1n\sum_i g(x_i)^2`;
* parameters: the Euclidean norm of the trained weights (``layers``);
* :math:`\|Dh(w_0)\|`: the operator norm of the Jacobian :math:`J` (n × p, trained weights)
  from parameters to functions, :math:`\|Dh\|^2 = \lambda_{\max}(J J^\top)/n =
  \lambda_{\max}(K_0)/n` (the empirical tangent kernel's top eigenvalue);
* :math:`\|D^2h(w_0)\|`: the operator norm of the symmetric bilinear map
  :math:`(u, v) \mapsto D^2h(w_0)[u, v]`, i.e.
  :math:`\sup_{\|u\| = \|v\| = 1} \|D^2h[u, v]\| = \sup_{\|e\| = 1} \|H_e\|_{op}` with
  :math:`H_e = \frac1n\sum_i e_i \nabla^2 h(x_i)`.

For :math:`h = s\sum_j a_j\sigma(b_j\cdot x)` the Hessian is exact in closed form almost
everywhere: :math:`\partial^2 h/\partial a_j\partial b_j = s\,1\{b_j\cdot x > 0\}\,x`, every
other block is 0 (σ'' = 0 away from the kinks; neurons do not interact). So :math:`H_e` is
block-diagonal with neuron blocks :math:`\begin{pmatrix}0 & g_j^\top\\ g_j & 0\end{pmatrix}`,
:math:`g_j = \frac sn X^\top M_j e` (:math:`M_j` the diagonal of the ReLU pattern of neuron
j on the data), whose eigenvalues are :math:`\pm\|g_j\|`; the supremum over e is

.. math:: \|D^2h(w_0)\| = \frac{s}{\sqrt n}\,\max_j \sigma_{\max}(M_j X)

(:func:`hessian_norm`: one d × d eigenvalue per neuron). The tests check it against the
generic route — finite-difference Hessian-vector products and an alternating power
iteration over e and u.

With one layer frozen, the derivatives are taken over the trained weights only. Training
the output weights alone (random features), h is linear in them: D²h = 0 and κ_α = 0
exactly, and the network *is* its linearisation. Training the input weights alone, D²h also
vanishes at w₀ (h is piecewise linear in B), but the network is not linear: its laziness
comes from the kinks (activation flips) that κ_α cannot see, so κ_α is not reported there
(:data:`FIRST_LAYER_NOTE`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Laziness", "laziness", "hessian_norm", "FIRST_LAYER_NOTE"]

#: why κ_α is not reported when only the first layer trains
FIRST_LAYER_NOTE = (
    "κ_α is not reported when only the first layer trains: the ReLU network is piecewise linear "
    "in its input weights, so D²h(w₀) = 0 and κ_α = 0 although the activation patterns do flip "
    "(see flip share); κ_α measures smooth curvature only")


@dataclass(frozen=True)
class Laziness:
    """The α-free parts of κ_α at initialisation (norms as in the module docstring).

    ``target_norm`` = ‖α h(w₀) − y*‖ = ‖y*‖ (h(w₀) = 0); ``jacobian_norm`` = ‖Dh(w₀)‖;
    ``hessian_norm`` = ‖D²h(w₀)‖; ``defined`` is False when only the first layer trains.
    """

    target_norm: float
    jacobian_norm: float
    hessian_norm: float
    defined: bool = True

    def kappa(self, alpha: float) -> float | None:
        """κ_α = (1/α)‖y*‖ ‖D²h‖/‖Dh‖², or None where it is not reported."""
        if not self.defined:
            return None
        if self.jacobian_norm == 0.0:
            return math.inf
        return self.target_norm * self.hessian_norm / (alpha * self.jacobian_norm**2)


def hessian_norm(B0, X, scale: float) -> float:
    r"""‖D²h(w₀)‖ over both layers = (s/√n) max_j σ_max(M_j X), M_j = diag(1{b_j·x_i > 0}).

    ``B0`` (m, d) input weights at initialisation, ``X`` (n, d) training inputs, ``scale`` s.
    σ_max(M_j X)² is the top eigenvalue of the d × d matrix Σ_{i: b_j·x_i > 0} x_i x_iᵀ, or of
    the n × n matrix M_j X Xᵀ M_j when n < d (the same non-zero eigenvalues); the neurons go
    through in blocks of at most ``_BLOCK_ENTRIES`` matrix entries.
    """
    B0 = np.asarray(B0, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    pattern = (B0 @ X.T > 0.0).astype(np.float64)  # (m, n)
    size = min(n, d)
    block = max(1, _BLOCK_ENTRIES // (size * size))
    gram = X @ X.T if n < d else None
    top = 0.0
    for start in range(0, B0.shape[0], block):
        mask = pattern[start:start + block]
        if gram is None:
            mats = np.einsum("ji,ik,il->jkl", mask, X, X)  # Σ_i M_ji x_i x_iᵀ
        else:
            mats = mask[:, :, None] * gram[None] * mask[:, None, :]  # M_j X Xᵀ M_j
        top = max(top, float(np.linalg.eigvalsh(mats)[:, -1].max()))
    return float(scale * math.sqrt(max(top, 0.0) / n))


#: largest number of matrix entries held at once by :func:`hessian_norm`
_BLOCK_ENTRIES = 1 << 21


def laziness(setup) -> Laziness:
    """The parts of κ_α of a :class:`~ntkviz.core.training.dynamics.TrainSetup` (trained layers
    ``setup.config.layers``; ‖Dh‖² from the top eigenvalue of its K₀)."""
    cfg = setup.config
    n = setup.X_train.shape[0]
    y = np.asarray(setup.y_train)
    target = math.sqrt(float(np.dot(y, y)) / n)  # ‖α h(w₀) − y*‖ with h(w₀) = 0
    lam_max = float(setup.kernel_flow.eigenvalues[-1])
    jac = math.sqrt(max(lam_max, 0.0) / n)
    hess = hessian_norm(setup.B0, setup.X_train, cfg.scale) if cfg.layers == "all" else 0.0
    return Laziness(target, jac, hess, defined=cfg.layers != "first")
