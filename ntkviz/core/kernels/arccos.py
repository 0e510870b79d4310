"""Arc-cosine kernels κ0, κ1 and the two-layer ReLU NTK κ, with derivatives.

Conventions (Bietti & Mairal 2019, eqs. (3)-(5)), for a
cosine u ∈ [-1, 1] between two points of the unit sphere:

* κ0(u) = (π − arccos u)/π                       (= 2 E[1{wᵀx≥0} 1{wᵀx'≥0}])
* κ1(u) = (√(1−u²) + u (π − arccos u))/π         (= 2 E[(wᵀx)₊ (wᵀx')₊])
* κ(u)  = u κ0(u) + κ1(u), the NTK of f(x) = √(2/m) Σ_j v_j σ(w_jᵀx) with
  N(0, 1) weights (NTK parameterisation, factor 2 = He normalisation), κ(1) = 2.

Derivatives: κ0' = 1/(π√(1−u²)) (+inf at ±1), κ1' = κ0, κ' = 2κ0 + u κ0'
(−inf at −1, +inf at +1). Infinite derivatives are returned as ±inf, never NaN.

Numerics. Everything is written in the angles θ = arccos u and φ = π − θ,
obtained from whichever of 1 − u, 1 + u is small (θ = 2 asin √((1−u)/2)), with
1 − u² = (1 − u)(1 + u). κ1 near u = −1 is the tiny difference sin φ − φ cos φ
= φ³/3 − φ⁵/30 + …, evaluated by its series for φ < 1 (the direct formula loses
all relative accuracy there, e.g. κ1(−0.999999) = 3.0e−10); 1 − κ1 near u = 1
is (δφ + θ − sin θ)/π with δ = 1 − u, again with a series for θ − sin θ. The
same helpers serve the deep recursion (:mod:`ntkviz.core.kernels.deep`), which carries
δ = 1 − ρ alongside every layer's cosine ρ.

Front ends (:func:`kappa0`, …, :func:`arccos_with_deriv`) take any shape (scalars give floats), clip
rounding error outside [-1, 1] (``check_cosines``) and reject NaN or values
further out. The compiled kernels (``*_kernel``) take 1-D float64 arrays.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ntkviz._check import check_choice
from ntkviz.core._validate import check_cosines

__all__ = [
    "kappa0", "kappa1", "kappa_ntk",
    "arccos_with_deriv", "ARCCOS_FORMS",
    "arccos_kernel",
]

_PI = math.pi
_INV_PI = 1.0 / math.pi
_JIT = dict(nogil=True, cache=True, error_model="numpy")


#: Taylor coefficients, highest first, of (sin x − x cos x)/x³ and (x − sin x)/x³ in y = x²:
#: (−1)^{n+1} 2n/(2n+1)! and (−1)^{n+1}/(2n+1)!, n = 10..1
_SIN_MINUS_X_COS = (-3.9145882126782523e-19, 1.4797143443923793e-16, -4.498331606952833e-14,
                    1.0706029224547743e-11, -1.9270852604185937e-09, 2.505210838544172e-07,
                    -2.2045855379188714e-05, 0.0011904761904761906, -0.03333333333333333,
                    0.3333333333333333)
_X_MINUS_SIN = (-1.9572941063391263e-20, 8.22063524662433e-18, -2.8114572543455206e-15,
                7.647163731819816e-13, -1.6059043836821613e-10, 2.505210838544172e-08,
                -2.7557319223985893e-06, 0.0001984126984126984, -0.008333333333333333,
                0.16666666666666666)


@njit(**_JIT)
def _odd_series(x, coefficients):
    """x³ Σ_j c_j (x²)^{n−1−j} by Horner (c highest degree first); for 0 <= x < 1 the
    truncation is below 1e-20 relative with the ten terms above."""
    y = x * x
    p = 0.0
    for c in coefficients:
        p = p * y + c
    return p * y * x


@njit(**_JIT)
def _sin_minus_x_cos(x):
    """sin x − x cos x = Σ_{n≥1} (−1)^{n+1} 2n x^{2n+1}/(2n+1)!, accurate for small x (series below 1)."""
    if x >= 1.0:
        return math.sin(x) - x * math.cos(x)
    return _odd_series(x, _SIN_MINUS_X_COS)


@njit(**_JIT)
def _x_minus_sin(x):
    """x − sin x = Σ_{n≥1} (−1)^{n+1} x^{2n+1}/(2n+1)!, accurate for small x (series below 1)."""
    if x >= 1.0:
        return x - math.sin(x)
    return _odd_series(x, _X_MINUS_SIN)


@njit(inline="always", **_JIT)
def relu_duals(rho, delta, eps):
    """Arc-cosine quantities at a cosine given three ways.

    Parameters
    ----------
    rho, delta, eps : float
        The cosine ρ, δ = 1 − ρ and ε = 1 + ρ, each as accurate as the caller
        has it (the deep recursion knows δ to full relative accuracy).

    Returns
    -------
    k0, k1, dk0, ddk0, one_minus_k0, one_minus_k1 : float
        κ0(ρ), κ1(ρ), κ0'(ρ), κ0''(ρ), 1 − κ0(ρ), 1 − κ1(ρ); κ0' and κ0'' are
        ±inf at ρ = ±1.
    """
    if delta <= 0.5:
        theta = 2.0 * math.asin(math.sqrt(0.5 * delta))
        phi = _PI - theta
        sin_t = math.sqrt(delta * (2.0 - delta))
    elif eps <= 0.5:
        phi = 2.0 * math.asin(math.sqrt(0.5 * eps))
        theta = _PI - phi
        sin_t = math.sqrt(eps * (2.0 - eps))
    else:  # |ρ| < 1/2: both angles are >= π/3
        theta = math.acos(rho)
        phi = _PI - theta
        sin_t = math.sqrt(delta * eps)
    k0 = phi * _INV_PI
    om_k0 = theta * _INV_PI
    # sin φ = sin θ, cos φ = −ρ: κ1 = (sin φ − φ cos φ)/π
    if phi < 1.0:
        k1 = _sin_minus_x_cos(phi) * _INV_PI
    else:
        k1 = (sin_t + phi * rho) * _INV_PI
    if theta < 1.0:
        om_k1 = (delta * phi + _x_minus_sin(theta)) * _INV_PI
    else:
        om_k1 = (delta * phi + theta - sin_t) * _INV_PI
    if sin_t > 0.0:
        inv_s = 1.0 / sin_t
        dk0 = inv_s * _INV_PI
        ddk0 = rho * dk0 * inv_s * inv_s
    else:
        dk0 = math.inf
        ddk0 = math.inf if rho > 0 else -math.inf
    return k0, k1, dk0, ddk0, om_k0, om_k1


@njit(**_JIT)
def arccos_kernel(u, which, value, deriv):
    """Fill ``value``/``deriv`` with κ0 (which=0), κ1 (1) or κ = uκ0 + κ1 (2).

    ``u`` is a 1-D float64 array already clipped to [-1, 1].
    """
    for i in range(u.shape[0]):
        x = u[i]
        k0, k1, dk0, _, _, _ = relu_duals(x, 1.0 - x, 1.0 + x)
        if which == 0:
            value[i] = k0
            deriv[i] = dk0
        elif which == 1:
            value[i] = k1
            deriv[i] = k0
        else:
            value[i] = x * k0 + k1
            if math.isinf(dk0):
                deriv[i] = math.inf if x > 0 else -math.inf
            else:
                deriv[i] = 2.0 * k0 + x * dk0


def flat_cosines(u, name: str = "u") -> tuple[np.ndarray, tuple]:
    """Checked cosines as a contiguous 1-D float64 array, and the input's shape."""
    shape = np.shape(u)
    return np.ascontiguousarray(check_cosines(u, name).reshape(-1)), shape


def shaped(shape: tuple, *arrays: np.ndarray):
    """Reshape flat results to ``shape``; a scalar input gives floats."""
    if shape == ():
        return tuple(float(a[0]) for a in arrays)
    return tuple(a.reshape(shape) for a in arrays)


#: the closed forms, in the order of :func:`arccos_kernel`'s ``which``
ARCCOS_FORMS = ("kappa0", "kappa1", "kappa_ntk")


def arccos_with_deriv(name: str, u):
    """``(κ(u), κ'(u))`` of the closed form ``name`` (one of :data:`ARCCOS_FORMS`), any shape.

    κ0'(u) = 1/(π√(1−u²)) (+inf at ±1); κ1'(u) = κ0(u) (finite: 0 at −1, 1 at +1);
    the NTK's κ'(u) = 2κ0(u) + u κ0'(u) (−inf at −1, +inf at +1).
    """
    which = ARCCOS_FORMS.index(check_choice("arc-cosine kernel", name, ARCCOS_FORMS))
    flat, shape = flat_cosines(u)
    value = np.empty_like(flat)
    deriv = np.empty_like(flat)
    arccos_kernel(flat, which, value, deriv)
    return shaped(shape, value, deriv)


def kappa0(u):
    """κ0(u) = (π − arccos u)/π, the degree-0 arc-cosine kernel (step features)."""
    return arccos_with_deriv("kappa0", u)[0]


def kappa1(u):
    """κ1(u) = (√(1−u²) + u(π − arccos u))/π, the degree-1 arc-cosine kernel (ReLU features)."""
    return arccos_with_deriv("kappa1", u)[0]


def kappa_ntk(u):
    """κ(u) = u κ0(u) + κ1(u), the two-layer ReLU NTK on the sphere (κ(1) = 2, paper eq. (5))."""
    return arccos_with_deriv("kappa_ntk", u)[0]
