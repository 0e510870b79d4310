"""Normalised Gegenbauer polynomials ``P_k^{[q]}(t)`` of dimension ``q`` (``P_k(1) = 1``).

``P_k^{[q]}`` is the Legendre polynomial of the sphere ``S^{q-1}`` (Gegenbauer ``C_k^{λ}``
with ``λ = (q-2)/2`` divided by its value at 1; Chebyshev ``T_k`` for ``q = 2``). Three-term
recurrence (forward, stable for ``|t| <= 1``)::

    P_0 = 1,  P_1 = t,  P_{k+1} = ((2k + q - 2) t P_k - k P_{k-1}) / (k + q - 2).

``log_gegenbauer`` runs the same recurrence with a running scale so that values far below
1e-308 keep their digits (returned as sign and natural log of the magnitude).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def _gegenbauer_table(t, q, kmax, out):
    for j in range(t.shape[0]):
        out[0, j] = 1.0
        if kmax >= 1:
            out[1, j] = t[j]
    for k in range(1, kmax):
        a = (2.0 * k + q - 2.0) / (k + q - 2.0)
        b = k / (k + q - 2.0)
        for j in range(t.shape[0]):
            out[k + 1, j] = a * t[j] * out[k, j] - b * out[k - 1, j]


def gegenbauer(q: int, kmax: int, t) -> np.ndarray:
    """``P_k^{[q]}(t)`` for ``k = 0..kmax``: array of shape ``(kmax + 1,) + t.shape``."""
    t = np.asarray(t, dtype=np.float64)
    flat = np.ascontiguousarray(t.ravel())
    out = np.empty((kmax + 1, flat.shape[0]))
    _gegenbauer_table(flat, float(q), int(kmax), out)
    return out.reshape((kmax + 1,) + t.shape)


@njit(nogil=True, cache=True)
def _log_gegenbauer(t, q, kmax, sign, logabs):
    # P_k = s * x_k with x_k kept O(1); log|P_k| = log s + log|x_k|
    prev = 1.0
    cur = t
    log_scale = 0.0
    sign[0] = 1.0
    logabs[0] = 0.0
    if kmax >= 1:
        sign[1] = 1.0 if t > 0 else (-1.0 if t < 0 else 0.0)
        logabs[1] = math.log(abs(t)) if t != 0 else -np.inf
    for k in range(1, kmax):
        nxt = ((2.0 * k + q - 2.0) * t * cur - k * prev) / (k + q - 2.0)
        prev = cur
        cur = nxt
        big = max(abs(cur), abs(prev))
        if big != 0.0 and (big < 1e-200 or big > 1e200):
            log_scale += math.log(big)
            cur /= big
            prev /= big
        if cur == 0.0:
            sign[k + 1] = 0.0
            logabs[k + 1] = -np.inf
        else:
            sign[k + 1] = 1.0 if cur > 0 else -1.0
            logabs[k + 1] = math.log(abs(cur)) + log_scale


def log_gegenbauer(q: int, kmax: int, t: float) -> tuple[np.ndarray, np.ndarray]:
    """Sign and ``ln|P_k^{[q]}(t)|`` for ``k = 0..kmax`` (no underflow; ``-inf`` at zeros)."""
    sign = np.empty(kmax + 1)
    logabs = np.empty(kmax + 1)
    _log_gegenbauer(float(t), float(q), int(kmax), sign, logabs)
    return sign, logabs


def log_sphere_density_constant(q: int) -> float:
    """``ln c_q`` with ``c_q = Γ(q/2) / (√π Γ((q-1)/2))``: the density of ``u = ⟨x, z⟩`` for
    ``x`` uniform on ``S^{q-1}`` is ``c_q (1 - u²)^{(q-3)/2}`` on [-1, 1]."""
    return math.lgamma(q / 2) - 0.5 * math.log(math.pi) - math.lgamma((q - 1) / 2)


def upper_tail(q: int, t: float) -> float:
    """``P(u > t)`` for ``u = ⟨x, z⟩``, ``x`` uniform on ``S^{q-1}``: ``u = 1 - 2B`` with
    ``B ~ Beta((q-1)/2, (q-1)/2)``, so ``P(u > t) = I_{(1-t)/2}((q-1)/2, (q-1)/2)``."""
    from scipy.special import betainc

    a = (q - 1) / 2
    return float(betainc(a, a, (1.0 - t) / 2.0))
