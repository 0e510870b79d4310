"""The stability theorems' bound forms fitted to the points of a stability figure (Qt-free).

The theorems bound the relative distance ``d = ‖Φ(L_τ x) − Φ(x)‖ / ‖Φ(x)‖`` by

* CKN: ``C₁ ‖∇τ‖∞ + C₂ ‖τ‖∞ / σₙ`` (Lipschitz, plus a translation term that vanishes as
  the last pooling scale ``σₙ`` grows);
* NTK: ``C ‖∇τ‖∞^½ + C′ ‖∇τ‖∞`` (Hölder-½ for small deformations, linear beyond the
  crossover ``‖∇τ‖∞ = (C / C′)²``).

Their constants are not computable, so the figures overlay **least-squares fits** of these
forms on the measured points (:func:`ntkviz.core.deformations.fits.fit_ckn_bound`,
:func:`~ntkviz.core.deformations.fits.fit_ntk_bound`, non-negative coefficients,
relative residuals: every point counts by its relative error, as on log axes), labelled as
fits, never as the theorems' constants.

* Amplitude figure (:func:`sweep_overlays`): the points are the plotted means per
  amplitude, with the mean ``‖∇τ‖∞`` and ``‖τ‖∞ / σₙ`` of the deformations at that
  amplitude (``σₙ`` from :func:`~ntkviz.core.deformations.fits.pooling_scale`).
  Additive noise has no ``τ``: no form applies. A translation has ``∇τ = 0``: the NTK form
  vanishes and only the CKN's translation term is fitted.
* Sets figure along the deformation amplitude α (:func:`sets_overlays`), per deformation
  set: its first-order fields give ``‖∇τ‖∞ ∝ α`` and ``‖τ‖∞ ∝ α``, so the forms are fitted
  in α (the proportionality constants go into the fitted coefficients); the one-pixel moves
  of a ``deform+translate`` set add the constant translation term ``1 px / σₙ`` to the CKN
  form. The NTK form has no translation term, so it is fitted to the sets without moves.

:func:`fit_columns` adds the fitted values and coefficients to a figure's CSV table.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ntkviz.core.deformations.fits import BoundFit, fit_ckn_bound, fit_ntk_bound, pooling_scale

__all__ = ["BoundOverlay", "sweep_overlays", "sets_overlays", "fit_columns", "FORMS"]

#: the fitted forms, by map
FORMS = {"ckn": "C₁‖∇τ‖∞ + C₂‖τ‖∞/σₙ", "ntk": "C‖∇τ‖∞^½ + C′‖∇τ‖∞"}


@dataclass(frozen=True, eq=False)
class BoundOverlay:
    """One fitted bound form over the points of one curve.

    Attributes
    ----------
    map : ``"ckn"`` or ``"ntk"``.
    x : the x values (the figure's axis) of the points fitted.
    values : the fitted form at those points (empty without a fit).
    curve_x, curve_values : the fitted form as drawn: at ``x`` where the form is known only at
        the points (its ``‖∇τ‖∞`` and ``‖τ‖∞`` measured there), on a fine grid where it is a
        function of x itself (the sets figure's α).
    fit : the :class:`~ntkviz.core.deformations.fits.BoundFit`, or None (``note`` says why).
    crossover_x : NTK: the x where ``‖∇τ‖∞`` equals the fit's crossover ``(C / C′)²``, NaN
        when that lies outside the points (or for the CKN).
    note : why there is no fit ("" with one).
    """

    map: str
    x: np.ndarray
    values: np.ndarray
    fit: BoundFit | None = None
    crossover_x: float = math.nan
    note: str = ""
    curve_x: np.ndarray | None = None
    curve_values: np.ndarray | None = None

    def __post_init__(self):
        if self.curve_x is None:
            object.__setattr__(self, "curve_x", self.x)
            object.__setattr__(self, "curve_values", self.values)

    @property
    def crossover(self) -> float:
        """``‖∇τ‖∞`` at the √ → linear crossover of an NTK fit (NaN otherwise)."""
        return self.fit.crossover if self.fit is not None else math.nan

    def describe(self) -> str:
        """One line: the form and its fitted coefficients (or why there is none)."""
        name = self.map.upper()
        if self.fit is None:
            return f"{name}: no fit ({self.note})"
        a, b = self.fit.coefficients
        if self.map == "ckn":
            return f"{name} {FORMS['ckn']}: C₁ = {a:.3g}, C₂ = {b:.3g}"
        text = f"{name} {FORMS['ntk']}: C = {a:.3g}, C′ = {b:.3g}"
        g = self.crossover
        if math.isfinite(self.crossover_x):
            return text + f", √ → linear at ‖∇τ‖∞ = {g:.3g}"
        if math.isfinite(g) and g > 0:
            return text + f", √ → linear at ‖∇τ‖∞ = {g:.3g} (outside the sweep)"
        return text + (", linear term 0: no crossover" if b == 0 else ", no √ term")


def _empty(name: str, note: str) -> BoundOverlay:
    return BoundOverlay(name, np.empty(0), np.empty(0), None, math.nan, note)


def _overlay(name: str, x, grad, translation, distance, x_of_grad=None) -> BoundOverlay:
    """Fit ``name``'s form to the points with a finite distance > 0 (at least 2); the
    crossover's x by log-log interpolation of ``x`` against ``‖∇τ‖∞`` (``x_of_grad``:
    None for the same, a function otherwise)."""
    x, g, d = (np.asarray(a, dtype=np.float64) for a in (x, grad, distance))
    t = None if translation is None else np.asarray(translation, dtype=np.float64)
    ok = np.isfinite(d) & (d > 0) & np.isfinite(g) & (np.isfinite(t) if t is not None else True)
    if ok.sum() < 2:
        return _empty(name, f"{int(ok.sum())} measured point(s); a fit of two coefficients needs 2")
    x, g, d = x[ok], g[ok], d[ok]
    if name == "ntk":
        if not np.any(g > 0):
            return _empty(name, "‖∇τ‖∞ = 0 (a translation): the form vanishes")
        fit = fit_ntk_bound(g, d, relative=True)
        values = fit.predict(g)
        cross = _crossover_x(fit.crossover, g, x)
    else:
        t = t[ok]
        fit = fit_ckn_bound(g, t, d, relative=True)
        values = fit.predict(g, t)
        cross = math.nan
    return BoundOverlay(name, x, values, fit, cross)


def _crossover_x(g_star: float, g: np.ndarray, x: np.ndarray) -> float:
    """The x at which ``‖∇τ‖∞ = g_star``, interpolated log-log between the points; NaN
    outside their range."""
    if not math.isfinite(g_star) or g_star <= 0 or np.any(g <= 0) or np.any(x <= 0):
        return math.nan
    order = np.argsort(g)
    gs, xs = g[order], x[order]
    if not gs[0] <= g_star <= gs[-1]:
        return math.nan
    return float(np.exp(np.interp(math.log(g_star), np.log(gs), np.log(xs))))


def sweep_overlays(result, architecture) -> dict[str, BoundOverlay]:
    """The fitted forms over the amplitude figure's CKN and NTK curves (those swept), from a
    ``SweepResult`` computed with ``architecture`` (see the module docstring)."""
    out = {}
    for name in ("ckn", "ntk"):
        if name not in result.maps:
            continue
        if result.family == "noise":
            out[name] = _empty(name, "additive noise has no displacement τ: the forms are of "
                                     "deformations")
            continue
        if name == "ntk" and not architecture.supports_ntk:
            out[name] = _empty(name, "this architecture has no NTK")
            continue
        sigma = pooling_scale(architecture)
        if name == "ckn" and sigma == 0:
            out[name] = _empty(name, "σₙ = 0 (strided last pooling): the translation term is unbounded")
            continue
        translation = np.asarray(result.tau_sup, dtype=np.float64) / sigma if sigma > 0 else None
        out[name] = _overlay(name, result.amplitudes, result.jacobian_sup, translation,
                             getattr(result, f"{name}_mean"))
    return out


def sets_overlays(result, architecture) -> dict[tuple[str, int], BoundOverlay]:
    """The fitted forms over the sets figure's deformation-set curves, keyed ``(map, set
    index)``, from a ``SetsResult`` along the ``amplitude`` sweep computed with
    ``architecture`` as its base (empty for the architecture sweeps: α is fixed there)."""
    if result.sweep != "amplitude":
        return {}
    alpha = np.asarray(result.values, dtype=np.float64)
    sigma = pooling_scale(architecture)
    out = {}
    for s, spec in enumerate(result.sets):
        if not spec.deforms:
            continue
        done = result.count[s] > 0
        for name in ("ckn", "ntk"):
            d = np.where(done, result.mean[name][s], np.nan)
            if name == "ntk" and not architecture.supports_ntk:
                out[(name, s)] = _empty(name, "this architecture has no NTK")
            elif name == "ntk" and spec.translates:
                out[(name, s)] = _empty(name, "the NTK form has no translation term")
            elif name == "ckn" and spec.translates and sigma == 0:
                out[(name, s)] = _empty(name, "σₙ = 0 (strided last pooling): the translation term "
                                              "is unbounded")
            else:
                move = 1.0 / sigma if spec.translates else 0.0
                overlay = _overlay(name, alpha, alpha, move * np.ones_like(alpha) if name == "ckn" else None, d)
                if overlay.fit is not None:  # the form is a function of α: drawn on a fine grid
                    lo, hi = overlay.x.min(), overlay.x.max()
                    grid = np.geomspace(lo, hi, 64) if lo > 0 else np.linspace(lo, hi, 64)
                    values = (overlay.fit.predict(grid) if name == "ntk"
                              else overlay.fit.predict(grid, move * np.ones_like(grid)))
                    overlay = dataclasses.replace(overlay, curve_x=grid, curve_values=values)
                out[(name, s)] = overlay
    return out


def _cell(value: float):
    return "" if not math.isfinite(value) else float(value)


def fit_columns(response, architecture, header: list, rows: list) -> tuple[list, list]:
    """``(header, rows)`` of a figure's CSV table with the fitted forms added.

    Amplitude figure (``SweepResult``; rows per amplitude): per map fitted, ``<map>_fit``
    (the form at that amplitude, empty where the point was not fitted) and its coefficients
    ``ckn_fit_c1, ckn_fit_c2`` / ``ntk_fit_c, ntk_fit_c_prime, ntk_crossover_grad_tau``.
    Sets figure (``SetsResult``; rows ``map,set,sweep,value,…``) along the amplitude sweep:
    a ``fit`` column (empty for the sets and maps without a fit); other sweeps: unchanged.
    """
    header, rows = list(header), [list(r) for r in rows]
    if hasattr(response, "amplitudes"):
        names = {"ckn": ("c1", "c2"), "ntk": ("c", "c_prime")}
        for name, overlay in sweep_overlays(response, architecture).items():
            if overlay.fit is None:
                continue
            at = dict(zip(overlay.x.tolist(), overlay.values.tolist()))
            extra = [f"{name}_fit"] + [f"{name}_fit_{c}" for c in names[name]]
            coefficients = list(overlay.fit.coefficients)
            if name == "ntk":
                extra.append("ntk_crossover_grad_tau")
                coefficients.append(overlay.crossover)
            header += extra
            for row, amplitude in zip(rows, np.asarray(response.amplitudes, dtype=np.float64)):
                row += [_cell(at.get(float(amplitude), math.nan))] + [_cell(c) for c in coefficients]
        return header, rows
    overlays = sets_overlays(response, architecture)
    if not overlays:
        return header, rows
    names = response.set_names()
    fitted = {}
    for (name, s), overlay in overlays.items():
        for x, v in zip(overlay.x.tolist(), overlay.values.tolist()):
            fitted[(name, names[s], x)] = v
    header.append("fit")
    for row in rows:
        row.append(_cell(fitted.get((row[0], row[1], float(row[3])), math.nan)))
    return header, rows
