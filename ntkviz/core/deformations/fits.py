"""The stability theorems' bound forms fitted to measured distances (fits, not the theorems).

Bietti & Mairal bound the relative distance ``d = ||Phi(L_tau x) - Phi(x)|| / ||Phi(x)||``
of a deformed image, for ``||grad tau||_inf <= 1/2``, by

* CKN (JMLR 2019): ``C_1 ||grad tau||_inf + C_2 ||tau||_inf / sigma_n`` (Lipschitz in the
  deformation, a translation term that vanishes as the last pooling scale ``sigma_n``
  grows);
* NTK (NeurIPS 2019): ``C ||grad tau||_inf^(1/2) + C' ||grad tau||_inf`` (plus the same
  translation term): Hölder-1/2 for small deformations, linear for large ones, the two
  terms equal at the crossover ``||grad tau||_inf = (C / C')^2``.

The theorems' constants are not computable; these functions fit the forms to measured
points by non-negative least squares (``scipy.optimize.nnls``: every coefficient
``>= 0``, as in the bounds), minimising ``sum_i w_i^2 (model_i - d_i)^2`` with ``w_i = 1``
or, with ``relative=True``, ``w_i = 1 / d_i`` (every point counts by its relative error,
fitting log-log curves across decades). The result is labelled as a fit of the form.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["BoundFit", "fit_ckn_bound", "fit_ntk_bound", "pooling_scale"]


@dataclass(frozen=True)
class BoundFit:
    """A bound form fitted to measured points.

    Attributes
    ----------
    form : ``"ckn"`` (``c[0] ||grad tau|| + c[1] ||tau|| / sigma_n``) or ``"ntk"``
        (``c[0] ||grad tau||^(1/2) + c[1] ||grad tau||``).
    coefficients : the fitted ``(C_1, C_2)`` or ``(C, C')``, each ``>= 0``.
    rms : root-mean-square residual of the (weighted) fit.
    points : how many points were fitted.
    relative : whether residuals were relative (weights ``1 / d_i``).
    """

    form: str
    coefficients: tuple[float, float]
    rms: float
    points: int
    relative: bool = False

    def predict(self, jacobian_sup, translation=None) -> np.ndarray:
        """The fitted form at ``||grad tau||_inf`` (and ``||tau||_inf / sigma_n`` for the CKN)."""
        g = np.asarray(jacobian_sup, dtype=np.float64)
        a, b = self.coefficients
        if self.form == "ntk":
            return a * np.sqrt(g) + b * g
        if translation is None:
            raise ValueError("the CKN form needs translation = ||tau||_inf / sigma_n")
        return a * g + b * np.asarray(translation, dtype=np.float64)

    @property
    def crossover(self) -> float:
        """NTK: ``(C / C')^2``, where the linear term overtakes the square-root term (``inf``
        when ``C' = 0``, 0 when ``C = 0``); NaN for the CKN form."""
        if self.form != "ntk":
            return math.nan
        c, c2 = self.coefficients
        if c2 == 0:
            return math.inf if c > 0 else math.nan
        return (c / c2) ** 2

    @property
    def label(self) -> str:
        """A legend text that says this is a fit of the form, with the fitted values."""
        a, b = self.coefficients
        if self.form == "ckn":
            return f"fit of C₁‖∇τ‖∞ + C₂‖τ‖∞/σₙ: C₁ = {a:.3g}, C₂ = {b:.3g} (not the theorem's constants)"
        return f"fit of C‖∇τ‖∞^½ + C′‖∇τ‖∞: C = {a:.3g}, C′ = {b:.3g} (not the theorem's constants)"


def _points(name: str, values, n: int | None = None) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    if n is not None and arr.size != n:
        raise ValueError(f"{name} must have one value per distance ({n}), got {arr.size}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and >= 0")
    return arr


def _fit(form: str, columns: list[np.ndarray], d: np.ndarray, relative: bool) -> BoundFit:
    from scipy.optimize import nnls

    if d.size < 2:
        raise ValueError(f"a fit of two coefficients needs at least 2 points, got {d.size}")
    A = np.stack(columns, axis=1)
    b = d.copy()
    if relative:
        if np.any(d <= 0):
            raise ValueError("relative fits need distances > 0")
        A, b = A / d[:, None], b / d
    coef, norm = nnls(A, b)
    return BoundFit(form, (float(coef[0]), float(coef[1])), float(norm / math.sqrt(d.size)),
                    int(d.size), relative)


def fit_ckn_bound(jacobian_sup, translation, distance, relative: bool = False) -> BoundFit:
    """Fit ``C_1 ||grad tau||_inf + C_2 ||tau||_inf / sigma_n`` (``C_1, C_2 >= 0``) to the
    measured relative ``distance`` s; ``translation`` is ``||tau||_inf / sigma_n`` per point
    (:func:`pooling_scale` gives ``sigma_n``). Needs two points or more."""
    d = _points("distance", distance)
    g = _points("jacobian_sup", jacobian_sup, d.size)
    t = _points("translation", translation, d.size)
    return _fit("ckn", [g, t], d, relative)


def fit_ntk_bound(jacobian_sup, distance, relative: bool = False) -> BoundFit:
    """Fit ``C ||grad tau||_inf^(1/2) + C' ||grad tau||_inf`` (``C, C' >= 0``) to the measured
    relative ``distance`` s; the crossover is :attr:`BoundFit.crossover`."""
    d = _points("distance", distance)
    g = _points("jacobian_sup", jacobian_sup, d.size)
    return _fit("ntk", [np.sqrt(g), g], d, relative)


def pooling_scale(arch) -> float:
    """``sigma_n`` in input pixels: the standard deviation of the last layer's pooling filter
    on its own grid (Gaussian ``pf / sqrt(2)``, average over ``pf`` taps
    ``sqrt((pf^2 - 1) / 12)``, strided 0) times the product of the earlier layers'
    subsampling factors (one step of the last grid in input pixels)."""
    last = arch.layers[-1]
    pf = last.pool_factor
    own = {"gaussian": pf / math.sqrt(2.0), "average": math.sqrt((pf * pf - 1) / 12.0),
           "strided": 0.0}[last.pooling]
    return own * math.prod(lay.subsampling for lay in arch.layers[:-1])
