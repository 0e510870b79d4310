"""Deep fully-connected NTK and NNGP of any activation, with their u-derivatives.

Recursion (Bietti & Mairal 2019 eqs. (6)-(7) and Lemma 1 for
ReLU without bias; Jacot et al. 2018 for the general dual-activation form).
L is the number of weight layers (L − 1 hidden layers), β >= 0 the bias
variance, k̂ the activation's dual maps (:mod:`ntkviz.core.kernels.activations`):

    Σ_0 = u + β,  q_0 = 1 + β,  Θ_0 = Σ_0,
    Σ_k = k̂(Σ_{k−1}; q_{k−1}) + β,  q_k = k̂(q_{k−1}; q_{k−1}) + β,
    Θ_k = Σ_k + Θ_{k−1} k̂'(Σ_{k−1}; q_{k−1}),
    NNGP_L = Σ_{L−1},  NTK_L = Θ_{L−1}.

With ReLU and β = 0 this is : NTK_L(1) = L (paper
normalisation, un-normalised), NNGP_L(1) = 1, and NTK_2 = κ = uκ0 + κ1.
``normalize=True`` divides by the value at u = 1 (the "1/L" variant for ReLU
without bias).

The derivative d/du is carried through the same loop by the chain rule:
dΣ_k = k̂' dΣ_{k−1}, dΘ_k = dΣ_k + dΘ_{k−1} k̂' + Θ_{k−1} k̂'' dΣ_{k−1}, where
k̂'' = ∂k̂'/∂s is infinite at correlation ±1 for ReLU (so the NTK's derivative
is +inf at u = 1 and −inf at u = −1 without bias). A product with an exact
zero factor counts as 0 (no NaN from 0·inf). For ReLU/step the loop also
carries δ_k = 1 − ρ_k (ρ_k = Σ_k/q_k) to full relative accuracy, which keeps
the derivatives accurate at u close to 1.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ntkviz import limits as _limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core.kernels.activations import ACTIVATIONS, dual_map, dual_tables
from ntkviz.core.kernels.arccos import flat_cosines, shaped

__all__ = ["deep_kernel", "deep_ntk", "deep_nngp"]

_JIT = dict(nogil=True, cache=True, error_model="numpy")


@njit(**_JIT)
def _prod3(a, b, c):
    if a == 0.0 or b == 0.0 or c == 0.0:
        return 0.0
    return a * b * c


@njit(**_JIT)
def _add(a, b):
    """a + b, with inf − inf (a kernel singular on both sides) resolved to b's sign."""
    s = a + b
    if s != s:
        return b
    return s


@njit(**_JIT)
def deep_recursion(u, beta, depth, ntk, kind, c, q, coef, ncoef, value, deriv):
    """Fill ``value``/``deriv`` (1-D) with NTK_L (ntk=True) or NNGP_L and d/du.

    ``u`` is a 1-D float64 array clipped to [-1, 1]; ``q, coef, ncoef`` come
    from :func:`ntkviz.core.kernels.activations.dual_tables`.
    """
    # layer-outer loop: the points are independent, which lets the CPU overlap them
    n = u.shape[0]
    sig = np.empty(n)
    dsig = np.ones(n)
    rho = np.empty(n)
    delta = np.empty(n)
    eps = np.empty(n)
    q0 = q[0]
    for i in range(n):
        x = u[i]
        sig[i] = x + beta
        rho[i] = sig[i] / q0
        delta[i] = (1.0 - x) / q0
        eps[i] = (1.0 + x + 2.0 * beta) / q0
        value[i] = sig[i]  # Θ_0
        deriv[i] = 1.0
    for k in range(depth - 1):
        inv_q = 1.0 / q[k + 1]
        qk = q[k]
        nk = ncoef[k]
        for i in range(n):
            kk, kp, kpp, omk = dual_map(kind, c, coef, k, nk, qk, rho[i], delta[i], eps[i])
            new_sig = kk + beta
            new_dsig = kp * dsig[i]
            if ntk:
                theta = value[i]
                carried = deriv[i] * kp if kp != 0.0 else 0.0
                deriv[i] = _add(_add(new_dsig, carried), _prod3(theta, kpp, dsig[i]))
                value[i] = _add(new_sig, theta * kp if kp != 0.0 else 0.0)
            sig[i] = new_sig
            dsig[i] = new_dsig
            rho[i] = new_sig * inv_q
            delta[i] = omk * inv_q
            eps[i] = 1.0 + rho[i]
    if not ntk:
        for i in range(n):
            value[i] = sig[i]
            deriv[i] = dsig[i]


def deep_kernel(u, depth: int = 2, *, ntk: bool = True, bias: float = 0.0,
                activation: str = "relu", normalize: bool = False):
    """NTK_L or NNGP_L of a deep fully-connected network and its derivative in u.

    Parameters
    ----------
    u : array_like
        Cosines in [-1, 1] (rounding error outside is clipped).
    depth : int
        L, number of weight layers, 1..50 (L = 1: the linear kernel u + β).
    ntk : bool
        True for the NTK Θ_{L−1}, False for the NNGP Σ_{L−1}.
    bias : float
        Bias variance β >= 0 added at every layer.
    activation : str
        One of :data:`ntkviz.core.kernels.activations.ACTIVATIONS`.
    normalize : bool
        Divide value and derivative by the kernel's value at u = 1.

    Returns
    -------
    value, derivative : ndarray (same shape as ``u``; floats for a scalar ``u``)
        Derivative ±inf where infinite.
    """
    depth = check_int("depth", depth, _limits.LAYERS_RANGE)
    bias = check_float("bias", bias, _limits.DEEP_BIAS_RANGE)
    check_choice("activation", activation, ACTIVATIONS)
    flat, shape = flat_cosines(u)
    return shaped(shape, *_deep_kernel(flat, depth, ntk, bias, activation, normalize))


def _deep_kernel(flat, depth: int, ntk: bool, bias: float, activation: str, normalize: bool):
    """:func:`deep_kernel` of flat float64 cosines in [-1, 1] with checked parameters (no
    checks here: for callers that validated them once, e.g. a ``KernelSpec``, valid by construction)."""
    t = dual_tables(activation, depth, bias)
    value = np.empty_like(flat)
    deriv = np.empty_like(flat)
    deep_recursion(flat, bias, depth, bool(ntk), t.kind, t.c, t.q, t.coef, t.ncoef, value, deriv)
    if normalize:
        one = np.empty(1)
        deep_recursion(np.ones(1), bias, depth, bool(ntk), t.kind, t.c, t.q, t.coef, t.ncoef,
                       one, np.empty(1))
        if not math.isfinite(one[0]) or one[0] == 0.0:
            raise ValueError(f"normalize: the kernel's value at u = 1 is {one[0]}, cannot divide by it")
        value /= one[0]
        deriv /= one[0]
    return value, deriv


def deep_ntk(u, depth: int, bias: float = 0.0, activation: str = "relu", normalize: bool = False):
    """NTK_L(u) and its derivative (see :func:`deep_kernel`); ReLU, β = 0: NTK_L(1) = L."""
    return deep_kernel(u, depth, ntk=True, bias=bias, activation=activation, normalize=normalize)


def deep_nngp(u, depth: int, bias: float = 0.0, activation: str = "relu", normalize: bool = False):
    """NNGP_L(u) = Σ_{L−1} and its derivative (see :func:`deep_kernel`); ReLU: κ1^{∘(L−1)}."""
    return deep_kernel(u, depth, ntk=False, bias=bias, activation=activation, normalize=normalize)
