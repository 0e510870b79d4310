"""The closed-form route: Mercer eigenvalues of κ0, κ1 and the two-layer ReLU NTK
(Bietti & Mairal 2019, App. C and Prop. 5), in log space with ``lgamma``.

Exact zeros (by parity) are exactly ``0.0`` and flagged. Conventions as in
:mod:`ntkviz.core.spectra.mercer` (uniform probability measure on ``S^{p-1}``).
"""
from __future__ import annotations

import math

import numpy as np

from ntkviz.core.spectra import _series

__all__: list[str] = []  # private: used by ntkviz.core.spectra.mercer

_EPS = _series.EPS


def _arccos0_closed(p: int, kmax: int):
    """log μ_{0,k}: 1/2, Γ(p/2)²Γ(k/2)²/(2π²Γ((k+p)/2)²) for odd k, 0 for even k >= 2."""
    k = np.arange(kmax + 1)
    log_mu = np.full(kmax + 1, -np.inf)
    lg_size = np.zeros(kmax + 1)
    log_mu[0] = math.log(0.5)
    odd = k[1::2].astype(np.float64)
    log_mu[1::2] = (2.0 * math.lgamma(0.5 * p) + 2.0 * _lgamma(0.5 * odd)
                    - math.log(2.0 * math.pi ** 2) - 2.0 * _lgamma(0.5 * (odd + p)))
    lg_size[1::2] = 2.0 * (abs(math.lgamma(0.5 * p)) + np.abs(_lgamma(0.5 * odd))
                           + np.abs(_lgamma(0.5 * (odd + p)))) + 2.0
    zero = (k >= 2) & (k % 2 == 0)
    return log_mu, lg_size, zero


def _arccos1_closed(p: int, kmax: int):
    """log μ_{1,k}: 2p(Γ(p/2)/(2√πΓ((p+1)/2)))², 1/(2p), then
    pΓ(p/2)²Γ((k-1)/2)²/(8π²Γ((k+p+1)/2)²) for even k, 0 for odd k >= 3."""
    k = np.arange(kmax + 1)
    log_mu = np.full(kmax + 1, -np.inf)
    lg_size = np.zeros(kmax + 1)
    lg0 = math.lgamma(0.5 * p) - math.log(2.0 * math.sqrt(math.pi)) - math.lgamma(0.5 * (p + 1))
    log_mu[0] = math.log(2.0 * p) + 2.0 * lg0
    lg_size[0] = 2.0 * (abs(math.lgamma(0.5 * p)) + abs(math.lgamma(0.5 * (p + 1)))) + 2.0
    if kmax >= 1:
        log_mu[1] = -math.log(2.0 * p)
        lg_size[1] = 1.0
    even = k[2::2].astype(np.float64)
    log_mu[2::2] = (math.log(p) + 2.0 * math.lgamma(0.5 * p) + 2.0 * _lgamma(0.5 * (even - 1.0))
                    - math.log(8.0 * math.pi ** 2) - 2.0 * _lgamma(0.5 * (even + p + 1.0)))
    lg_size[2::2] = 2.0 * (abs(math.lgamma(0.5 * p)) + np.abs(_lgamma(0.5 * (even - 1.0)))
                           + np.abs(_lgamma(0.5 * (even + p + 1.0)))) + 2.0
    zero = (k >= 3) & (k % 2 == 1)
    return log_mu, lg_size, zero


def _ntk2_closed(p: int, kmax: int):
    """Two-layer ReLU NTK (Bietti & Mairal 2019, Prop. 5): μ_0 = μ_{0,1} + μ_{1,0};
    μ_k = k/(2k+p-2) μ_{0,k-1} + (k+p-2)/(2k+p-2) μ_{0,k+1} + μ_{1,k}
    (positive terms, added in log space)."""
    lmu0, lg0, _ = _arccos0_closed(p, kmax + 1)
    lmu1, lg1, zero = _arccos1_closed(p, kmax)
    log_mu = lmu1.copy()
    lg = lg1.copy()
    log_mu[0] = np.logaddexp(lmu1[0], lmu0[1])
    lg[0] = max(lg[0], lg0[1])
    k = np.arange(1, kmax + 1, dtype=np.float64)
    den = 2.0 * k + p - 2.0
    log_mu[1:] = np.logaddexp(np.logaddexp(lmu1[1:], np.log(k / den) + lmu0[:-2]),
                              np.log((k + p - 2.0) / den) + lmu0[2:])
    lg[1:] = np.maximum(lg[1:], np.maximum(lg0[:-2], lg0[2:])) + 1.0
    return log_mu, lg, zero


def _lgamma(x: np.ndarray) -> np.ndarray:
    return np.array([math.lgamma(v) for v in np.ravel(x)]).reshape(np.shape(x))


_CLOSED_FORMS = {"arccos0": _arccos0_closed, "arccos1": _arccos1_closed, "ntk": _ntk2_closed}


def closed_form_name(spec) -> str | None:
    """Which closed form (if any) gives this spec exactly (before normalisation)."""
    if spec.name in ("arccos0", "arccos1"):
        return spec.name
    if spec.depth == 2 and spec.bias == 0.0:
        if spec.activation == "relu":
            return "ntk" if spec.name == "ntk" else "arccos1"
        if spec.activation == "step" and spec.name == "nngp":
            return "arccos0"
    return None


def closed_form_spectrum(form: str, p: int, kmax: int):
    """``(log_scale, mu_scaled, err_scaled, exact_zero, κ(1))``: μ_k = mu_scaled[k]
    exp(log_scale[k]) (here ``mu_scaled`` is 1, or 0 at the exact zeros)."""
    log_mu, lg_size, zero = _CLOSED_FORMS[form](p, kmax)
    log_mu = log_mu[: kmax + 1].copy()
    lg_size = lg_size[: kmax + 1]
    zero = zero[: kmax + 1]
    mu_s = np.where(zero, 0.0, 1.0)
    log_mu[zero] = 0.0
    # float64 lgamma: relative error ~ eps * (size of the log terms) + a few ulps
    err_s = mu_s * _EPS * (8.0 + 2.0 * lg_size)
    value_at_one = 2.0 if form == "ntk" else 1.0
    return log_mu, mu_s, err_s, zero, value_at_one
