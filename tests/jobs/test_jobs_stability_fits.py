"""The stability theorems' bound forms fitted to a figure's points: closed forms (data made
exactly of a form are fitted back to its coefficients), the crossover's place, the cases
where a form does not apply, and the CSV columns."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.deformations.fits import fit_ckn_bound, fit_ntk_bound, pooling_scale
from ntkviz.core.deformations.sets import SetsResult
from ntkviz.core.deformations.set_specs import parse_sets
from ntkviz.core.deformations.stability import SweepResult
from ntkviz.jobs._stability_fits import fit_columns, sets_overlays, sweep_overlays

M1 = PRESETS["M1"]


def sweep(amplitudes, ckn, ntk, grad, tau, family="smooth", maps=("ckn", "ntk", "pixels")):
    """A SweepResult holding exactly these points (the other fields NaN)."""
    a = np.asarray(amplitudes, float)
    nan = np.full(a.size, np.nan)
    return SweepResult(family=family, amplitudes=a, ckn_mean=np.asarray(ckn, float), ckn_std=nan,
                       ntk_mean=np.asarray(ntk, float), ntk_std=nan, pixel_mean=nan, pixel_std=nan,
                       tau_sup=np.asarray(tau, float), jacobian_sup=np.asarray(grad, float),
                       complete=True, maps=maps)


def test_data_made_of_the_forms_give_their_coefficients_back():
    """d = C₁ g + C₂ τ/σₙ and d = C √g + C′ g exactly: the fits find C₁, C₂, C, C′ and the
    crossover (C/C′)², whose amplitude is read off the (power-law) points."""
    amps = np.geomspace(0.01, 3.0, 7)
    grad = 0.2 * amps  # ‖∇τ‖∞ ∝ amplitude
    tau = 1.5 * np.sqrt(amps) + 0.3  # not proportional to ‖∇τ‖∞: both coefficients identifiable
    sigma = pooling_scale(M1)
    c1, c2, c, cp = 0.8, 0.05, 0.3, 0.6
    ckn = c1 * grad + c2 * tau / sigma
    ntk = c * np.sqrt(grad) + cp * grad
    overlays = sweep_overlays(sweep(amps, ckn, ntk, grad, tau), M1)
    np.testing.assert_allclose(overlays["ckn"].fit.coefficients, (c1, c2), rtol=1e-9)
    np.testing.assert_allclose(overlays["ntk"].fit.coefficients, (c, cp), rtol=1e-9)
    np.testing.assert_allclose(overlays["ckn"].values, ckn, rtol=1e-9)
    g_star = (c / cp) ** 2  # 0.25: within the points' ‖∇τ‖∞ (0.002 .. 0.6)
    assert overlays["ntk"].crossover == pytest.approx(g_star, rel=1e-9)
    assert overlays["ntk"].crossover_x == pytest.approx(g_star / 0.2, rel=1e-9)  # g = 0.2 a
    assert math.isnan(overlays["ckn"].crossover_x)
    assert "C₁ = 0.8" in overlays["ckn"].describe() and "√ → linear" in overlays["ntk"].describe()


def test_the_overlay_is_the_fit_of_the_plotted_points():
    """Noisy points: the overlay is fit_*_bound (relative residuals) of exactly the points
    plotted (finite and > 0; a NaN point is left out) and its values are that fit's form."""
    rng = np.random.default_rng(3)
    amps = np.geomspace(0.05, 2.0, 6)
    grad, tau = 0.3 * amps, 2.0 * amps
    ckn = (0.5 * grad + 0.02 * tau) * rng.uniform(0.8, 1.2, 6)
    ntk = (0.4 * np.sqrt(grad) + 0.2 * grad) * rng.uniform(0.8, 1.2, 6)
    ntk[2] = np.nan
    overlays = sweep_overlays(sweep(amps, ckn, ntk, grad, tau), M1)
    sigma = pooling_scale(M1)
    want = fit_ckn_bound(grad, tau / sigma, ckn, relative=True)
    assert overlays["ckn"].fit == want
    keep = np.isfinite(ntk)
    want_ntk = fit_ntk_bound(grad[keep], ntk[keep], relative=True)
    assert overlays["ntk"].fit == want_ntk
    np.testing.assert_array_equal(overlays["ntk"].x, amps[keep])
    np.testing.assert_allclose(overlays["ntk"].values, want_ntk.predict(grad[keep]), rtol=1e-15)


def test_forms_that_do_not_apply_are_not_fitted():
    amps = np.array([0.1, 0.3, 1.0])
    zero = np.zeros(3)
    noise = sweep_overlays(sweep(amps, amps, np.sqrt(amps), zero, zero, family="noise"), M1)
    assert all(o.fit is None and "noise" in o.note for o in noise.values())
    translation = sweep_overlays(sweep(amps, 0.1 * amps, 0.2 * amps, zero, amps, family="translation"), M1)
    assert translation["ckn"].fit is not None and translation["ckn"].fit.coefficients[0] == 0.0
    assert translation["ntk"].fit is None and "translation" in translation["ntk"].note
    m4 = sweep_overlays(sweep(amps, amps, np.full(3, np.nan), amps, amps), PRESETS["M4"])
    assert m4["ntk"].fit is None and "no NTK" in m4["ntk"].note
    one = sweep_overlays(sweep(amps[:1], amps[:1], amps[:1], amps[:1], amps[:1]), M1)
    assert one["ckn"].fit is None and "needs 2" in one["ckn"].note
    assert "pixels" not in sweep_overlays(sweep(amps, amps, amps, amps, amps, maps=("ckn", "pixels")), M1)


def sets_result(values, sweep_name="amplitude"):
    specs = parse_sets(("deform:3", "deform+translate:1", "same"))
    alpha = np.asarray(values, float)
    mean = {"ckn": np.stack([0.7 * alpha, 0.4 * alpha + 0.05, 0.3 + 0 * alpha]),
            "ntk": np.stack([0.2 * np.sqrt(alpha) + 0.1 * alpha, 0.5 + 0 * alpha, 0.4 + 0 * alpha])}
    sem = {m: 0.01 * np.ones_like(v) for m, v in mean.items()}
    count = np.full((3, alpha.size), 5)
    return SetsResult(sweep_name, tuple(values), specs, mean, sem, count, ("M1",) * alpha.size, 5, True)


def test_sets_forms_in_alpha():
    """Along the amplitude sweep each deformation set is fitted in α: CKN C₁α + C₂ t with the
    translation term t = 1 px / σₙ of the one-pixel moves (0 without them); NTK C√α + C′α
    (no NTK fit for a set with moves: its form has no translation term); the label sets
    and the architecture sweeps get none."""
    values = (0.1, 0.3, 1.0, 3.0)
    r = sets_result(values)
    overlays = sets_overlays(r, M1)
    assert set(overlays) == {("ckn", 0), ("ntk", 0), ("ckn", 1), ("ntk", 1)}
    np.testing.assert_allclose(overlays[("ckn", 0)].fit.coefficients, (0.7, 0.0), atol=1e-12)
    sigma = pooling_scale(M1)
    np.testing.assert_allclose(overlays[("ckn", 1)].fit.coefficients, (0.4, 0.05 * sigma), rtol=1e-9)
    np.testing.assert_allclose(overlays[("ntk", 0)].fit.coefficients, (0.2, 0.1), rtol=1e-9)
    assert overlays[("ntk", 0)].crossover == pytest.approx(4.0)  # (0.2/0.1)² = 4 > 3: outside the sweep
    assert math.isnan(overlays[("ntk", 0)].crossover_x)
    assert "outside the sweep" in overlays[("ntk", 0)].describe()
    assert overlays[("ntk", 1)].fit is None and "translation term" in overlays[("ntk", 1)].note
    # drawn on a fine grid between the smallest and largest α, the same form
    o = overlays[("ckn", 1)]
    assert o.curve_x[0] == 0.1 and o.curve_x[-1] == pytest.approx(3.0) and len(o.curve_x) == 64
    np.testing.assert_allclose(o.curve_values, 0.4 * o.curve_x + 0.05, rtol=1e-9)
    assert sets_overlays(sets_result((1, 2, 3), "last-pooling"), M1) == {}


def test_fit_columns_are_the_overlays():
    amps = np.geomspace(0.01, 3.0, 5)
    grad, tau = 0.2 * amps, 1.5 * amps
    r = sweep(amps, 0.8 * grad + 0.01 * tau, 0.3 * np.sqrt(grad) + 0.6 * grad, grad, tau)
    header, rows = fit_columns(r, M1, *r.to_csv_rows())
    overlays = sweep_overlays(r, M1)
    for name, coeffs in (("ckn", ("c1", "c2")), ("ntk", ("c", "c_prime"))):
        col = header.index(f"{name}_fit")
        np.testing.assert_array_equal([row[col] for row in rows], overlays[name].values)
        for k, c in enumerate(coeffs):
            assert {row[header.index(f'{name}_fit_{c}')] for row in rows} == {overlays[name].fit.coefficients[k]}
    assert rows[0][header.index("ntk_crossover_grad_tau")] == overlays["ntk"].crossover
    s = sets_result((0.1, 1.0, 3.0))
    header, rows = fit_columns(s, M1, *s.csv_table())
    assert header[-1] == "fit"
    fitted = [row for row in rows if row[-1] != ""]
    assert {(row[0], row[1]) for row in fitted} == {("ckn", "deform"), ("ntk", "deform"),
                                                     ("ckn", "deform+translate")}
    o = sets_overlays(s, M1)[("ntk", 0)]
    assert [row[-1] for row in rows if row[:2] == ["ntk", "deform"]] == list(o.values)
