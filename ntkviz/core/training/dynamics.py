r"""Lazy training of a two-layer ReLU network (Chizat, Oyallon & Bach, NeurIPS 2019).

Teacher–student regression on the sphere :math:`S^{d-1}` (the circle by default)
with a two-layer ReLU student, trained at output scale :math:`\alpha`, in
lock-step with its linearisation at initialisation and with two closed-form
kernel gradient flows (the empirical tangent kernel at initialisation and the
infinite-width NTK).

Conventions
-----------
Student
    :math:`f(x; a, B) = s \sum_{j=1}^m a_j \,\sigma(b_j\cdot x)`, :math:`\sigma(z)=\max(z,0)`,
    :math:`s = 1` (the paper's set-up), :math:`s = 1/\sqrt m` (``ntk_scaling=True``, the NTK
    parameterisation) or :math:`s = 1/m` (``mean_field=True``, Chizat & Bach 2018; the
    gradient steps are then ``lr``·m, so that the particles move at the speed of the
    mean-field limit in time :math:`t = \text{lr}\cdot\text{step}`: their gradients are
    O(1/m)). ``layers`` chooses the trained weights: both (default), the output weights
    :math:`a` only (the first layer frozen at initialisation: a random-features model, linear
    in its weights) or the input weights :math:`B` only. :math:`\sigma'(z) = 1\{z > 0\}`.
Initialisation
    ``init="symmetric"`` (default, the paper's): :math:`a_j, b_j \sim \mathcal N(0, 1)`
    for :math:`j < m/2`, then :math:`b_{j+m/2} = b_j`, :math:`a_{j+m/2} = -a_j`
    (``m`` must be even). The forward pass sums the neurons in the pairs
    :math:`(j, j+m/2)`, so :math:`f(w_0) = 0` *exactly* in floating point.
    ``init="centered"``: all weights i.i.d. :math:`\mathcal N(0, 1)` and the model is
    centred, :math:`h = f - f(w_0)` (the other way to get :math:`\alpha h(w_0) = 0`).
    With the symmetrised initialisation the second-order term of :math:`h` around
    :math:`w_0` cancels within each pair, so the net–linearised gap decays like
    :math:`1/\alpha^2` there, faster than the :math:`O(1/\alpha)` of Chizat et al.
    Thm 2.2 (which the centred initialisation attains).
Scaled objective
    The trained model is :math:`h(w) = f(w) - f(w_0)` and gradient descent runs on
    :math:`F_\alpha(w) = \alpha^{-2}\,\frac{1}{2n}\sum_i (\alpha h(w; x_i) - y_i)^2`
    with the **same step size** ``lr`` for every :math:`\alpha` (the Hessian of
    :math:`F_\alpha` at :math:`w_0` does not depend on :math:`\alpha`); time is
    :math:`t = \text{lr}\cdot\text{step}`. Far from :math:`w_0` the curvature of
    :math:`F_\alpha` grows like :math:`1/\alpha`, so small :math:`\alpha` needs a small
    step (about ``lr`` ≤ α/2 for the paper's set-up): too large a step is reported
    as divergence. Reported losses are those of the
    predictor :math:`\alpha h`: :math:`\frac{1}{2n}\sum_i(\alpha h(x_i) - y_i)^2`.
α ↔ τ
    :math:`f` is 2-homogeneous in its weights, so :math:`\alpha f(w) = f(\tau w)` with
    :math:`\alpha = \tau^2`: training :math:`\alpha h` from a unit-variance
    initialisation is plain gradient descent on :math:`\frac{1}{2n}\sum(f(w)-y)^2`
    from weights :math:`\mathcal N(0, \tau^2)` (the paper's τ experiments), through
    :math:`w_\tau = \tau\, w_\alpha`, with step ``lr``/α in the τ-parameterisation
    (and the same trajectories under gradient flow, time rescaled by α). The weights held here are the
    :math:`\alpha`-parameterisation (unit initialisation), so
    :math:`\|w(t) - w_0\| = O(1/\alpha)` (Chizat et al. Thm 2.2); in the
    :math:`\tau`-parameterisation the same quantity is :math:`\tau` times larger.
    Neuron positions are reported in the paper's :math:`\tau`-parameterisation:
    :math:`p_j = s\,|a^\tau_j|\, b^\tau_j = \alpha\, s\, |a_j|\, b_j`, the
    same units as the teacher neurons (:math:`\|a^*_k b^*_k\| = 1`).
Teacher
    :math:`y(x) = \sum_{k\le m_0} a^*_k\,\sigma(b^*_k\cdot x)` with
    :math:`\|b^*_k\| = 1`, :math:`a^*_k = \pm 1` (random signs), inputs uniform on
    the sphere. With ``noise`` σ the training targets are :math:`y_i + \sigma\varepsilon_i`,
    :math:`\varepsilon_i \sim \mathcal N(0, 1)`; test losses compare with the noiseless
    teacher.
Linearisation
    :math:`\bar h(w) = Dh(w_0)(w - w_0)`, trained by gradient descent on
    :math:`\alpha^{-2}\frac1{2n}\sum(\alpha\bar h - y)^2` with the same step.
    Its predictor :math:`\alpha\bar h(\bar w_k)` does not depend on
    :math:`\alpha`: it is kernel gradient *descent* with the empirical tangent
    kernel :math:`K_0 = Dh(w_0)Dh(w_0)^\top`.
Kernel gradient flows
    :math:`u'(t) = -\frac1n K(u - y)`, :math:`u(0) = 0`, solved in closed form
    by :func:`make_flow` (one eigendecomposition, then cheap ``predict(t)``), with
    :math:`K = K_0` and with the infinite-width NTK
    :math:`\mathbb E K_0(x, x') = \frac{m s^2}{2}\,\kappa(x\cdot x')`, where
    :math:`\kappa(u) = u\kappa_0(u) + \kappa_1(u)` is the two-layer ReLU NTK, with the
    arc-cosine kernels :math:`\kappa_0(u) = 1 - \arccos(u)/\pi` and
    :math:`\kappa_1(u) = (\sqrt{1-u^2} + u(\pi - \arccos u))/\pi` (so
    :math:`\kappa/2` with ``ntk_scaling``). With one layer frozen, K0 and its limit
    count the trained weights only: :math:`\kappa = \kappa_1` (last layer) or
    :math:`u\kappa_0` (first layer) (:func:`infinite_width_kernel`). With ``mean_field``
    the flows run for the time ``lr``·m·step of the steps taken.
Metrics per frame (see :data:`METRICS`)
    train/test loss of the net, the linearisation and the two kernel flows;
    :math:`\|w(t) - w_0\|` (α-parameterisation) and its relative value;
    the gap :math:`(\text{mean}_\text{test}(\alpha h(w_t) - \alpha\bar h(\bar w_t))^2)^{1/2}`
    and the same RMS on the training inputs. (ReLU is not smooth: where a kink
    :math:`b_j\cdot x = 0` crosses a test input the gap there is O(1) on a set of
    measure O(1/α); on the finitely many training inputs such flips stop for
    large α and the smooth-theory rates appear);
    the kernel drift :math:`\|K_t - K_0\|_F / \|K_0\|_F` of the empirical tangent
    kernel on the training inputs (the first ``DRIFT_POINTS``); the share of (training input, neuron) pairs
    whose ReLU pattern :math:`1\{b_j\cdot x_i > 0\}` differs from initialisation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Callable, Iterator

import numpy as np
from numba import njit

from ntkviz.core.training._train_config import (INITS, LAYERS, METRICS, TrainConfig, alpha_from_tau,
                                                tau_from_alpha)

__all__ = [
    "TrainConfig",
    "TrainSetup",
    "TrainFrame",
    "TrainProgress",
    "TrainResult",
    "METRICS",
    "INITS",
    "LAYERS",
    "INFINITE_KERNELS",
    "alpha_from_tau",
    "tau_from_alpha",
    "make_setup",
    "make_flow",
    "student_output",
    "linearized_output",
    "tangent_kernel",
    "infinite_width_kernel",
    "objective_and_gradient",
    "train_frames",
    "train",
]

#: number of angles of the display grid on the circle (the great circle in the (e1, e2) plane)
GRID_POINTS = 256
#: number of random test points on S^{d-1} used for the test loss when d > 2 (d = 2 uses the grid)
TEST_POINTS = 500
#: a run is declared diverged when a train loss exceeds this multiple of the initial loss
DIVERGENCE_FACTOR = 1e6
#: at most this many gradient steps per numba call (cancellation granularity)
CHUNK_STEPS = 2000
#: the kernel drift is measured on at most this many training inputs (cost n² m per frame)
DRIFT_POINTS = 200
# ----------------------------------------------------------------------------- numba kernels
@njit(nogil=True, cache=True)
def _dot(B, j, X, i):
    """b_j · x_i, summed in order of the coordinates."""
    acc = 0.0
    for k in range(B.shape[1]):
        acc += B[j, k] * X[i, k]
    return acc


@njit(nogil=True, cache=True)
def _preactivations(B, X, Z):
    """Z[j, i] = b_j · x_i."""
    for j in range(B.shape[0]):
        for i in range(X.shape[0]):
            Z[j, i] = _dot(B, j, X, i)


@njit(nogil=True, cache=True)
def _net_from_preactivations(a, Z, scale, out):
    """out[i] = s Σ_j a_j σ(Z[j, i]), summed over the pairs (j, j + m/2) so f(w0) = 0 exactly
    (an odd m, possible with the centred initialisation, adds its last neuron alone)."""
    m = a.shape[0]
    half = m // 2
    n = Z.shape[1]
    for i in range(n):
        out[i] = 0.0
    # neuron-outer (rows of Z are contiguous); each out[i] adds the pairs in the order j = 0, 1, …
    for j in range(half):
        for i in range(n):
            out[i] += a[j] * max(Z[j, i], 0.0) + a[j + half] * max(Z[j + half, i], 0.0)
    if m % 2:
        for i in range(n):
            out[i] += a[m - 1] * max(Z[m - 1, i], 0.0)
    for i in range(n):
        out[i] *= scale


@njit(nogil=True, cache=True)
def _net_gradient(a, Z, X, r, coef, ga, gB):
    """ga_j = coef Σ_i r_i σ(z_ji);  gB_j = coef a_j Σ_i r_i 1{z_ji > 0} x_i."""
    m = a.shape[0]
    n, d = X.shape
    for j in range(m):
        sa = 0.0
        for k in range(d):
            gB[j, k] = 0.0
        for i in range(n):
            z = Z[j, i]
            if z > 0.0:
                sa += r[i] * z
                w = coef * a[j] * r[i]
                for k in range(d):
                    gB[j, k] += w * X[i, k]
        ga[j] = coef * sa


@njit(nogil=True, cache=True)
def _linear_from_features(a0, Z0, X, da, dB, scale, out):
    """out[i] = s Σ_j [da_j σ(z0_ji) + a0_j 1{z0_ji > 0} dB_j · x_i] (= Dh(w0)·(w − w0))."""
    n = X.shape[0]
    for i in range(n):
        out[i] = 0.0
    for j in range(a0.shape[0]):  # neuron-outer; each out[i] sums over j in order
        for i in range(n):
            z = Z0[j, i]
            if z > 0.0:
                out[i] += da[j] * z + a0[j] * _dot(dB, j, X, i)
    for i in range(n):
        out[i] *= scale


@njit(nogil=True, cache=True)
def _gd_chunk(a, B, da, dB, a0, Z0, X, y, f0, alpha, lr, scale, nsteps, loss_limit, train_a,
              train_b):
    """Run ``nsteps`` gradient steps of the net (a, B) and of the linearisation (da, dB) in place;
    ``train_a`` / ``train_b`` False freeze the output / input weights at their current value.

    Returns ``(steps_done, code)``; code 0 = fine, 1 = net diverged, 2 = linearisation
    diverged (train loss not finite or above ``loss_limit``, checked before each step).
    """
    m, d = B.shape
    n = X.shape[0]
    Z = np.empty((m, n))
    h = np.empty(n)
    r = np.empty(n)
    hl = np.empty(n)
    rl = np.empty(n)
    ga = np.empty(m)
    gB = np.empty((m, d))
    coef = lr * scale / (alpha * n)  # lr · α^{-1} · (1/n) · s
    for step in range(nsteps):
        _preactivations(B, X, Z)
        _net_from_preactivations(a, Z, scale, h)
        _linear_from_features(a0, Z0, X, da, dB, scale, hl)
        loss = 0.0
        loss_lin = 0.0
        for i in range(n):
            r[i] = alpha * (h[i] - f0[i]) - y[i]
            rl[i] = alpha * hl[i] - y[i]
            loss += r[i] * r[i]
            loss_lin += rl[i] * rl[i]
        loss *= 0.5 / n
        loss_lin *= 0.5 / n
        if not (loss <= loss_limit):  # also catches NaN
            return step, 1
        if not (loss_lin <= loss_limit):
            return step, 2
        _net_gradient(a, Z, X, r, coef, ga, gB)
        _descend(a, B, ga, gB, train_a, train_b)
        _net_gradient(a0, Z0, X, rl, coef, ga, gB)
        _descend(da, dB, ga, gB, train_a, train_b)
    return nsteps, 0


@njit(nogil=True, cache=True)
def _descend(a, B, ga, gB, train_a, train_b):
    """a -= ga (if ``train_a``), B -= gB (if ``train_b``), in place."""
    if train_a:
        for j in range(a.shape[0]):
            a[j] -= ga[j]
    if train_b:
        for j in range(B.shape[0]):
            for k in range(B.shape[1]):
                B[j, k] -= gB[j, k]


@njit(nogil=True, cache=True)
def _tangent_kernel(a, B, X1, X2, scale, wa, wb):
    """K[i, k] = s² Σ_j [wa σ(z_ji) σ(z_jk) + wb a_j² 1{z_ji>0} 1{z_jk>0} x_i·x_k]
    (wa, wb = 1 or 0: the output / input weights counted or frozen)."""
    m, d = B.shape
    n1 = X1.shape[0]
    n2 = X2.shape[0]
    Z1 = np.empty((m, n1))
    Z2 = np.empty((m, n2))
    _preactivations(B, X1, Z1)
    _preactivations(B, X2, Z2)
    outer = np.zeros((n1, n2))  # Σ_j σ(z_ji) σ(z_jk)
    both = np.zeros((n1, n2))  # Σ_j a_j² 1{z_ji > 0} 1{z_jk > 0}
    for j in range(m):  # neuron-outer: rows of Z1, Z2 are contiguous, K stays in cache
        a2 = a[j] * a[j]
        for i in range(n1):
            z1 = Z1[j, i]
            if z1 > 0.0:
                for k in range(n2):
                    z2 = Z2[j, k]
                    if z2 > 0.0:
                        outer[i, k] += z1 * z2
                        both[i, k] += a2
    K = np.empty((n1, n2))
    for i in range(n1):
        for k in range(n2):
            xx = 0.0
            for c in range(d):
                xx += X1[i, c] * X2[k, c]
            K[i, k] = scale * scale * (wa * outer[i, k] + wb * both[i, k] * xx)
    return K


# ------------------------------------------------------------------ thin Python wrappers
def _c(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def student_output(a, B, X, scale: float = 1.0) -> np.ndarray:
    """f(x_i) = s Σ_j a_j σ(b_j·x_i) for each row of ``X`` (pairs summed, see module doc).

    ``a`` (m,), ``B`` (m, d), ``X`` (n, d); m even.
    """
    a, B, X = _c(a), _c(B), _c(X)
    Z = np.empty((B.shape[0], X.shape[0]))
    _preactivations(B, X, Z)
    out = np.empty(X.shape[0])
    _net_from_preactivations(a, Z, float(scale), out)
    return out


def linearized_output(a0, B0, da, dB, X, scale: float = 1.0) -> np.ndarray:
    """Dh(w0)·(w − w0) at the rows of ``X``, with w − w0 = (da, dB)."""
    a0, B0, da, dB, X = _c(a0), _c(B0), _c(da), _c(dB), _c(X)
    Z0 = np.empty((B0.shape[0], X.shape[0]))
    _preactivations(B0, X, Z0)
    out = np.empty(X.shape[0])
    _linear_from_features(a0, Z0, X, da, dB, float(scale), out)
    return out


def tangent_kernel(a, B, X1, X2=None, scale: float = 1.0, layers: str = "all") -> np.ndarray:
    """Empirical tangent kernel Dh(w)(x1) · Dh(w)(x2) over the trained weights (``layers``, one
    of :data:`LAYERS`: a and B, a only, B only), shape (n1, n2)."""
    X1 = _c(X1)
    X2 = X1 if X2 is None else _c(X2)
    wa, wb = _layer_weights(layers)
    return _tangent_kernel(_c(a), _c(B), X1, X2, float(scale), wa, wb)


def _layer_weights(layers: str) -> tuple[float, float]:
    """(1, 1), (1, 0) or (0, 1): whether the output weights a and the input weights B train."""
    if layers not in LAYERS:
        raise ValueError(f"layers must be one of {', '.join(LAYERS)}; got {layers!r}")
    return float(layers != "first"), float(layers != "last")


def objective_and_gradient(a, B, X, y, alpha: float, scale: float = 1.0, f0=None):
    """F_α(w) = α^{-2} (1/2n) Σ (α(f(w; x_i) − f0_i) − y_i)² and its gradient (∂a, ∂B).

    Used by :func:`train_frames` (through the same numba kernels) and checked
    against finite differences by the tests.
    """
    a, B, X, y = _c(a), _c(B), _c(X), _c(y)
    n = X.shape[0]
    f0 = np.zeros(n) if f0 is None else _c(f0)
    Z = np.empty((B.shape[0], n))
    _preactivations(B, X, Z)
    h = np.empty(n)
    _net_from_preactivations(a, Z, float(scale), h)
    r = alpha * (h - f0) - y
    ga = np.empty_like(a)
    gB = np.empty_like(B)
    _net_gradient(a, Z, X, r, float(scale) / (alpha * n), ga, gB)
    return float(0.5 / n * np.dot(r, r) / alpha**2), ga, gB


# ------------------------------------------------------------------------- kernel flows
def make_flow(kernel_train, targets, kernel_cross=None, *, lr: float | None = None):
    r"""Closed-form kernel regression dynamics; returns ``predict(t) -> (u_train, u_cross)``.

    Solves :math:`u'(t) = -\frac1n K (u - y)`, :math:`u(0) = 0` (gradient flow of
    :math:`\frac1{2n}\|u-y\|^2` in the RKHS of ``kernel_train`` = K, n×n), so
    :math:`u(t) = V(1 - e^{-\Lambda t/n})V^\top y` on the training inputs and
    :math:`K_\times V\,\mathrm{diag}\big((1-e^{-\lambda t/n})/\lambda\big)V^\top y`
    at the inputs of ``kernel_cross`` (n_cross×n). One eigendecomposition here;
    each ``predict(t)`` costs O(n² + n_cross·n); ``predict.eigenvalues`` holds the
    eigenvalues of K (ascending, those treated as 0 set to 0). With ``lr``, the discrete kernel
    gradient *descent* :math:`u_{k+1} = u_k - \frac{lr}n K(u_k - y)` is returned
    instead, with ``t = lr·k`` (k is rounded to an integer). Eigenvalues below
    ``n·λ_max·1e-13`` are treated as 0 (their components never move). As t → ∞
    the flow tends to kernel ("ridgeless") regression :math:`K_\times K^{+} y`.
    """
    K = _c(kernel_train)
    y = _c(targets)
    n = K.shape[0]
    if K.shape != (n, n) or y.shape != (n,):
        raise ValueError(f"kernel_train must be (n, n) and targets (n,), got {K.shape} and {y.shape}")
    lam, V = np.linalg.eigh(0.5 * (K + K.T))
    tol = max(lam.max(initial=0.0), 0.0) * n * 1e-13
    live = lam > tol
    lam = np.where(live, lam, 1.0)
    coeff = V.T @ y
    cross = None if kernel_cross is None else _c(kernel_cross) @ V

    def predict(t: float):
        if lr is None:
            decay = np.exp(-lam * (t / n))
        else:
            decay = (1.0 - lr * lam / n) ** int(round(t / lr))
        done = np.where(live, 1.0 - decay, 0.0)
        u_train = V @ (done * coeff)
        u_cross = None if cross is None else cross @ (done / lam * coeff)
        return u_train, u_cross

    predict.eigenvalues = np.where(live, lam, 0.0)  # of K (clipped at 0), ascending
    return predict


#: the infinite-width tangent kernel of the trained layers: name and κ with E K0 = (m s²/2) κ(u)
INFINITE_KERNELS = {
    "all": "two-layer ReLU NTK κ(u) = u κ0(u) + κ1(u)",
    "last": "arc-cosine kernel κ1(u) (the ReLU NNGP: random features, first layer frozen)",
    "first": "u κ0(u) (step features times x·x', output weights frozen)",
}


def infinite_width_kernel(X1, X2, width: int, scale: float, layers: str = "all") -> np.ndarray:
    r"""E K0 = (m s²/2) κ(x·x') on the unit sphere: the m → ∞ limit of the empirical tangent
    kernel of the trained layers (:data:`INFINITE_KERNELS`), from the arc-cosine closed forms.

    With w ~ N(0, I_d) and unit x, x': E σ(w·x) σ(w·x') = κ1(u)/2 (the output weights' part),
    E a² 1{w·x>0} 1{w·x'>0} x·x' = u κ0(u)/2 (the input weights' part); all layers: their sum,
    κ = uκ0 + κ1, the two-layer ReLU NTK. Each of the m neurons contributes s² times that."""
    from ntkviz.core.kernels.arccos import kappa0, kappa1

    u = np.clip(_c(X1) @ _c(X2).T, -1.0, 1.0)
    wa, wb = _layer_weights(layers)
    value = wa * kappa1(u) + (wb * u * kappa0(u) if wb else 0.0)
    return 0.5 * width * scale * scale * np.asarray(value, dtype=np.float64).reshape(u.shape)


# --------------------------------------------------------------------------- set-up
def _sphere(rng, count: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((count, dim))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@dataclass(frozen=True, eq=False)
class TrainSetup:
    """Everything fixed during a run (α-independent except ``config``); arrays read-only.

    ``X_eval`` = display grid (``GRID_POINTS`` angles θ, x = (cos θ, sin θ, 0, …))
    followed, when d > 2, by ``TEST_POINTS`` uniform test inputs; ``test`` is the
    slice of ``X_eval`` used for test losses and the gap (the grid itself when d = 2).
    """

    config: TrainConfig
    X_train: np.ndarray
    y_train: np.ndarray
    X_eval: np.ndarray
    y_eval: np.ndarray
    grid_angles: np.ndarray
    test: slice
    teacher_a: np.ndarray
    teacher_B: np.ndarray
    a0: np.ndarray
    B0: np.ndarray
    f0_train: np.ndarray
    f0_eval: np.ndarray
    K0: np.ndarray
    K0_eval: np.ndarray
    ntk: np.ndarray
    ntk_eval: np.ndarray
    kernel_flow: Callable = field(repr=False)
    ntk_flow: Callable = field(repr=False)
    initial_loss: float = 0.0
    lr_limit: float = math.inf

    @property
    def grid(self) -> slice:
        return slice(0, GRID_POINTS)

    @property
    def y_grid(self) -> np.ndarray:
        """Teacher on the display grid."""
        return self.y_eval[: GRID_POINTS]

    @property
    def teacher_positions(self) -> np.ndarray:
        """Teacher neurons |a*_k| b*_k in the (e1, e2) plane (unit norm when d = 2), shape (m0, 2)."""
        return np.abs(self.teacher_a)[:, None] * self.teacher_B[:, :2]

    @property
    def train_angles(self) -> np.ndarray:
        """Angle of each training input in the (e1, e2) plane."""
        return np.arctan2(self.X_train[:, 1], self.X_train[:, 0]) % (2 * np.pi)


def _readonly(*arrays):
    for arr in arrays:
        arr.setflags(write=False)


def _check_config(config) -> TrainConfig:
    """``config`` itself (a ``TrainConfig`` is valid by construction), or ``ValueError``."""
    if not isinstance(config, TrainConfig):
        raise ValueError(f"config must be a TrainConfig, got {type(config).__name__}")
    return config


def make_setup(config: TrainConfig) -> TrainSetup:
    """Draw teacher, data and initialisation from ``config.seed`` (the label noise from its own
    stream); build K0 and the infinite-width kernel of the trained layers and their flows (one
    eigendecomposition each). ``lr_limit`` = 2n/λmax(K0) in units of ``lr`` (divided by m
    with ``mean_field``, whose steps are ``lr``·m).

    Teacher and data depend on the seed, the dimension, n and m0 only: runs that differ in
    width, scaling, trained layers or initialisation share them."""
    cfg = _check_config(config)
    rng = np.random.default_rng(cfg.seed)
    d, m, n = cfg.dim, cfg.width, cfg.samples
    teacher_B = _sphere(rng, cfg.teacher, d)
    teacher_a = np.where(rng.standard_normal(cfg.teacher) >= 0.0, 1.0, -1.0)
    X_train = _sphere(rng, n, d)
    theta = np.linspace(0.0, 2 * np.pi, GRID_POINTS, endpoint=False)
    grid = np.zeros((GRID_POINTS, d))
    grid[:, 0], grid[:, 1] = np.cos(theta), np.sin(theta)
    if d == 2:
        X_eval, test = grid, slice(0, GRID_POINTS)
    else:
        X_eval = np.vstack([grid, _sphere(rng, TEST_POINTS, d)])
        test = slice(GRID_POINTS, GRID_POINTS + TEST_POINTS)
    if cfg.init == "symmetric":
        half_a = rng.standard_normal(m // 2)
        half_B = rng.standard_normal((m // 2, d))
        a0 = np.concatenate([half_a, -half_a])
        B0 = np.vstack([half_B, half_B])
    else:
        a0 = rng.standard_normal(m)
        B0 = rng.standard_normal((m, d))
    # the teacher is not symmetrised: evaluate it directly (any m0, no pair ordering)
    y_train = np.maximum(X_train @ teacher_B.T, 0.0) @ teacher_a
    if cfg.noise > 0.0:  # a stream of its own: the other draws do not depend on the noise
        y_train = y_train + cfg.noise * np.random.default_rng([cfg.seed, 1]).standard_normal(n)
    y_eval = np.maximum(X_eval @ teacher_B.T, 0.0) @ teacher_a
    s, layers = cfg.scale, cfg.layers
    f0_train = student_output(a0, B0, X_train, s)
    f0_eval = student_output(a0, B0, X_eval, s)
    K0 = tangent_kernel(a0, B0, X_train, None, s, layers)
    K0_eval = tangent_kernel(a0, B0, X_eval, X_train, s, layers)
    ntk = infinite_width_kernel(X_train, X_train, m, s, layers)
    ntk_eval = infinite_width_kernel(X_eval, X_train, m, s, layers)
    kernel_flow = make_flow(K0, y_train, K0_eval)
    lam_max = float(kernel_flow.eigenvalues[-1]) * cfg.step_size / cfg.lr
    initial_loss = 0.5 * float(np.dot(y_train, y_train)) / n
    _readonly(X_train, y_train, X_eval, y_eval, theta, teacher_a, teacher_B, a0, B0, f0_train,
              f0_eval, K0, K0_eval, ntk, ntk_eval)
    return TrainSetup(
        config=cfg, X_train=X_train, y_train=y_train, X_eval=X_eval, y_eval=y_eval,
        grid_angles=theta, test=test, teacher_a=teacher_a, teacher_B=teacher_B, a0=a0, B0=B0,
        f0_train=f0_train, f0_eval=f0_eval, K0=K0, K0_eval=K0_eval, ntk=ntk, ntk_eval=ntk_eval,
        kernel_flow=kernel_flow, ntk_flow=make_flow(ntk, y_train, ntk_eval),
        initial_loss=initial_loss, lr_limit=2.0 * n / lam_max if lam_max > 0 else math.inf,
    )


# --------------------------------------------------------------------------- frames
@dataclass(frozen=True, eq=False)
class TrainFrame:
    """One recorded instant. Curves are on the display grid (``setup.grid_angles``).

    ``neurons`` (m, 2): p_j = α s |a_j| b_j (first two coordinates; τ-parameterisation,
    see module doc); ``signs`` (m,): sign(a_j); ``net``, ``linear``, ``kernel``, ``ntk``:
    predictors α h(w_t), α h̄(w̄_t) and the two kernel flows at t; ``metrics``: the
    scalars of :data:`METRICS`.
    """

    step: int
    time: float
    neurons: np.ndarray
    signs: np.ndarray
    net: np.ndarray
    linear: np.ndarray
    kernel: np.ndarray
    ntk: np.ndarray
    metrics: dict


@dataclass(frozen=True, eq=False)
class TrainProgress:
    """An item of :func:`train_frames`: a new frame (or None on the final divergence item)."""

    fraction: float
    index: int
    frame: TrainFrame | None
    setup: TrainSetup
    done: bool = False
    diverged: bool = False
    message: str = ""


@dataclass(frozen=True, eq=False)
class TrainResult:
    """A finished (or stopped) run: the set-up and every recorded frame.

    ``diverged`` is True when the run stopped because a train loss exploded; the
    frames then end at the last finite frame and ``message`` says what happened.
    """

    setup: TrainSetup
    frames: tuple
    diverged: bool = False
    message: str = ""

    @property
    def steps(self) -> np.ndarray:
        return np.array([f.step for f in self.frames], dtype=np.int64)

    @property
    def times(self) -> np.ndarray:
        return np.array([f.time for f in self.frames])

    def metric(self, name: str) -> np.ndarray:
        """The metric ``name`` (a key of :data:`METRICS`) over the frames."""
        if name not in METRICS:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {name!r}")
        return np.array([f.metrics[name] for f in self.frames])

    def stacked(self, name: str) -> np.ndarray:
        """An array field of the frames stacked over time, e.g. ``stacked("neurons")`` (T, m, 2)."""
        if name not in {f.name for f in fields(TrainFrame)} - {"metrics"}:
            raise ValueError(f"field must be a TrainFrame array field, got {name!r}")
        return np.stack([getattr(f, name) for f in self.frames])


def _half_mean_square(pred, target) -> float:
    diff = pred - target
    return 0.5 * float(np.dot(diff, diff)) / diff.size


def _record(setup: TrainSetup, step: int, a, B, da, dB) -> TrainFrame:
    cfg = setup.config
    alpha, s = cfg.alpha, cfg.scale
    X, Xe, y, ye, test = setup.X_train, setup.X_eval, setup.y_train, setup.y_eval, setup.test
    t = cfg.lr * step
    t_flow = cfg.step_size * step  # the flows' own time: steps of lr·m in the mean-field case
    net_train = alpha * (student_output(a, B, X, s) - setup.f0_train)
    net_eval = alpha * (student_output(a, B, Xe, s) - setup.f0_eval)
    lin_train = alpha * linearized_output(setup.a0, setup.B0, da, dB, X, s)
    lin_eval = alpha * linearized_output(setup.a0, setup.B0, da, dB, Xe, s)
    _, kernel_eval = setup.kernel_flow(t_flow)
    _, ntk_eval = setup.ntk_flow(t_flow)
    drift_X = X[:DRIFT_POINTS]
    Kt = tangent_kernel(a, B, drift_X, None, s, cfg.layers)
    K0 = setup.K0[:DRIFT_POINTS, :DRIFT_POINTS]
    wa, wb = _layer_weights(cfg.layers)  # norms over the trained weights
    w0_norm = math.sqrt(wa * float(np.dot(setup.a0, setup.a0)) + wb * float(np.sum(setup.B0**2)))
    disp = math.sqrt(float(np.sum((a - setup.a0) ** 2)) + float(np.sum((B - setup.B0) ** 2)))
    flips = (X @ B.T > 0.0) != (X @ setup.B0.T > 0.0)
    gap = net_eval[test] - lin_eval[test]
    train_gap = net_train - lin_train
    metrics = {
        "train_loss": _half_mean_square(net_train, y),
        "test_loss": _half_mean_square(net_eval[test], ye[test]),
        "linear_train_loss": _half_mean_square(lin_train, y),
        "linear_test_loss": _half_mean_square(lin_eval[test], ye[test]),
        "kernel_test_loss": _half_mean_square(kernel_eval[test], ye[test]),
        "ntk_test_loss": _half_mean_square(ntk_eval[test], ye[test]),
        "displacement": disp,
        "relative_displacement": disp / w0_norm,
        "linear_displacement": math.sqrt(float(np.dot(da, da)) + float(np.sum(dB**2))),
        "gap": math.sqrt(float(np.dot(gap, gap)) / gap.size),
        "train_gap": math.sqrt(float(np.dot(train_gap, train_gap)) / train_gap.size),
        "kernel_drift": float(np.linalg.norm(Kt - K0) / np.linalg.norm(K0)),
        "flip_share": float(flips.mean()),
    }
    grid = setup.grid
    return TrainFrame(
        step=int(step), time=t,
        neurons=(alpha * s * np.abs(a))[:, None] * B[:, :2], signs=np.sign(a),
        net=net_eval[grid].copy(), linear=lin_eval[grid].copy(),
        kernel=kernel_eval[grid].copy(), ntk=ntk_eval[grid].copy(), metrics=metrics,
    )


def _sound(frame: TrainFrame, loss_limit: float) -> str:
    """"" if the frame is finite with bounded losses, else which model blew up."""
    if not frame.metrics["linear_train_loss"] <= loss_limit:
        return "linearised model"
    finite = all(math.isfinite(v) for v in frame.metrics.values())
    if not (finite and frame.metrics["train_loss"] <= loss_limit and np.isfinite(frame.neurons).all()):
        return "network"
    return ""


def train_frames(config: TrainConfig, setup: TrainSetup | None = None) -> Iterator[TrainProgress]:
    """Run gradient descent (net and linearisation in lock-step), yielding a frame at each
    step of ``config.frame_steps()``.

    The generator is the cancellation point: stop iterating to cancel (the numba
    work between two items is at most ``CHUNK_STEPS`` steps). If a train loss (net
    or linearisation) becomes non-finite or exceeds ``DIVERGENCE_FACTOR`` times the
    initial loss, the run stops: the last item has ``diverged=True``, ``frame=None``
    and a message; no non-finite frame is ever yielded. ``setup`` may be passed to
    reuse the draws of a previous :func:`make_setup` with the same seed and sizes.
    """
    cfg = _check_config(config)
    if setup is None or setup.config != cfg:
        setup = make_setup(cfg) if setup is None else _with_config(setup, cfg)
    a, B = setup.a0.copy(), setup.B0.copy()
    da, dB = np.zeros_like(a), np.zeros_like(B)
    Z0 = np.empty((cfg.width, cfg.samples))
    _preactivations(setup.B0, setup.X_train, Z0)
    loss_limit = DIVERGENCE_FACTOR * max(setup.initial_loss, 1e-300)
    targets = cfg.frame_steps()
    step = 0
    for index, target in enumerate(targets):
        while step < target:
            chunk = min(int(target - step), CHUNK_STEPS)
            done, code = _gd_chunk(a, B, da, dB, setup.a0, Z0, setup.X_train, setup.y_train,
                                   setup.f0_train, cfg.alpha, cfg.step_size, cfg.scale, chunk,
                                   loss_limit, cfg.layers != "first", cfg.layers != "last")
            step += int(done)
            if code:
                yield _diverged(setup, step, index, "network" if code == 1 else "linearised model")
                return
        frame = _record(setup, step, a, B, da, dB)
        which = _sound(frame, loss_limit)
        if which:
            yield _diverged(setup, step, index, which)
            return
        yield TrainProgress(fraction=step / cfg.steps, index=index, frame=frame, setup=setup,
                            done=index == len(targets) - 1)


def _with_config(setup: TrainSetup, cfg: TrainConfig) -> TrainSetup:
    """Reuse ``setup`` for ``cfg`` when only α, lr, steps, frames or log_time differ."""
    old = setup.config
    same = ("width", "samples", "teacher", "seed", "dim", "ntk_scaling", "init", "layers",
            "mean_field", "noise")
    if any(getattr(old, k) != getattr(cfg, k) for k in same):
        return make_setup(cfg)
    from dataclasses import replace

    return replace(setup, config=cfg)


def _diverged(setup: TrainSetup, step: int, index: int, which: str) -> TrainProgress:
    cfg = setup.config
    bound = "2n/(m λmax(K0)) (mean-field steps lr·m)" if cfg.mean_field else "2n/λmax(K0)"
    hint = (f"; with this kernel, lr must stay below {bound} = {setup.lr_limit:.3g}"
            if cfg.lr >= setup.lr_limit else "")
    message = (f"training diverged at step {step}: the {which}'s train loss exploded "
               f"(lr = {cfg.lr:g}){hint}. Reduce the step size.")
    return TrainProgress(fraction=step / cfg.steps, index=index, frame=None, setup=setup,
                         done=True, diverged=True, message=message)


def train(config: TrainConfig, setup: TrainSetup | None = None) -> TrainResult:
    """Run :func:`train_frames` to the end and stack the frames."""
    frames = []
    last = None
    for last in train_frames(config, setup):
        if last.frame is not None:
            frames.append(last.frame)
    return TrainResult(setup=last.setup, frames=tuple(frames), diverged=last.diverged,
                       message=last.message)
