"""Qt-free requests of the kernel-curve and spectrum panels (ntkviz.jobs._curves)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core import KernelSpec, empirical_kernels, evaluate_kernel, mercer_spectrum, multiplicity
from ntkviz.jobs import KernelCurveRequest, SpectrumRequest, run_to_end
from ntkviz.jobs._curves import local_slopes

NTK2 = KernelSpec(name="ntk", depth=2)
K1 = KernelSpec(name="arccos1")


def kappa0(u):
    return (np.pi - np.arccos(u)) / np.pi


def kappa1(u):
    return (np.sqrt((1 - u) * (1 + u)) + u * (np.pi - np.arccos(u))) / np.pi


# ---------------------------------------------------------------- kernel curves
def test_curves_equal_core_and_closed_form():
    r = KernelCurveRequest(specs=(NTK2, K1), n_points=101, derivative=True)()
    u = np.linspace(-1, 1, 101)
    np.testing.assert_array_equal(r.u, u)
    for c, spec in zip(r.curves, (NTK2, K1)):
        value, deriv = evaluate_kernel(spec, u)
        np.testing.assert_array_equal(c.value, value)
        np.testing.assert_array_equal(c.derivative, deriv)
    # independent closed forms: κ = u κ0 + κ1, κ(1) = 2
    np.testing.assert_allclose(r.curves[0].value, u * kappa0(u) + kappa1(u), atol=1e-13)
    np.testing.assert_allclose(r.curves[1].value, kappa1(u), atol=1e-13)
    assert r.curves[0].value_at_one == pytest.approx(2.0)
    assert not r.u.flags.writeable and not r.curves[0].value.flags.writeable


def test_no_derivative_and_no_extras_by_default():
    r = KernelCurveRequest(specs=(NTK2,), near_one=False)()
    assert r.curves[0].derivative is None and r.near_one is None and r.empirical is None


def test_near_one_matches_expansions():
    r = KernelCurveRequest(specs=(NTK2, K1), near_one=True, eps_min=1e-10, n_near=50)()
    n = r.near_one
    eps = n.eps
    assert eps[0] == pytest.approx(1e-10, rel=1e-5) and eps[-1] == 1.0
    u = 1 - eps
    # independent closed forms of 2κ(1) − 2κ(1 − ε)
    np.testing.assert_allclose(n.gap[1], 2 - 2 * kappa1(u), rtol=1e-6, atol=1e-15)
    # Hölder-½ (NTK) vs Lipschitz (κ1): leading terms (2√2/π) ε^½ and 2ε
    small = eps < 1e-8
    np.testing.assert_allclose(n.gap[0][small] / np.sqrt(eps[small]), 2 * math.sqrt(2) / math.pi,
                               rtol=1e-3)
    np.testing.assert_allclose(n.gap[1][small] / eps[small], 2.0, rtol=1e-3)
    (l1, c1, e1, v1), (l2, c2, e2, v2) = n.guides
    assert (e1, e2) == (0.5, 1.0)
    np.testing.assert_allclose(v1, 2 * math.sqrt(2) / math.pi * np.sqrt(eps))
    np.testing.assert_allclose(v2, 2 * eps)


def test_empirical_overlay_uses_first_ntk_and_core_samples():
    spec = KernelSpec(name="ntk", depth=3)
    req = KernelCurveRequest(specs=(K1, spec), width=256, seed=7, n_samples=3,
                             n_overlay_points=9)
    r = req()
    e = r.empirical
    u = np.linspace(-1, 1, 9)
    direct = empirical_kernels(u, 256, depth=3, seed=7, n_samples=3)
    np.testing.assert_allclose(e.samples, direct.ntk)
    np.testing.assert_allclose(e.mean, direct.ntk.mean(axis=0))
    np.testing.assert_allclose(e.std, direct.ntk.std(axis=0))
    np.testing.assert_allclose(e.limit, evaluate_kernel(spec, u)[0])
    assert e.samples.shape == (3, 9) and e.width == 256


def test_empirical_overlay_approaches_limit_and_respects_normalisation():
    spec = KernelSpec(name="ntk", depth=2, normalize=True)
    e = KernelCurveRequest(specs=(spec,), width=8192, seed=1, n_samples=2)().empirical
    assert np.max(np.abs(e.mean - e.limit)) < 0.1  # fluctuations O(1/√m), limit(1) = 1
    assert e.limit[-1] == pytest.approx(1.0)


@pytest.mark.parametrize("kwargs, match", [
    ({"specs": ()}, "specs must hold 1 to 8"),
    ({"specs": (NTK2,) * 9}, "specs must hold 1 to 8"),
    ({"specs": ("ntk",)}, r"specs\[0\] must be a KernelSpec"),
    ({"specs": (NTK2,), "n_points": 2}, "n_points"),
    ({"specs": (K1,), "width": 100}, "needs an NTK or NNGP"),
    ({"specs": (NTK2,), "width": 0}, "width"),
    ({"specs": (NTK2,), "n_samples": 0}, "n_samples"),
    ({"specs": (KernelSpec(name="ntk", depth=5),), "width": 65536, "n_samples": 2}, "too costly"),
])
def test_kernel_request_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        KernelCurveRequest(**kwargs)


def test_kernel_csv_tables():
    r = KernelCurveRequest(specs=(NTK2, K1), n_points=11, derivative=True, near_one=True,
                           n_near=5, width=64, n_overlay_points=5, n_samples=2)()
    header, rows = r.csv_table("curves")
    assert header[:5] == ["u", NTK2.label, K1.label, f"d/du {NTK2.label}", f"d/du {K1.label}"]
    assert len(rows) == 11
    assert [row[1] for row in rows] == list(r.curves[0].value)
    assert [row[5] for row in rows[:5]] == list(r.empirical.u) and rows[5][5] == ""
    header, rows = r.csv_table("near_one")
    assert len(rows) == 5 and [row[0] for row in rows] == list(r.near_one.eps)
    with pytest.raises(ValueError, match="view"):
        r.csv_table("bogus")


def request_of(state):
    """The one way a kernel choice becomes a request: the panel's model."""
    from ntkviz.models.kernel_curves import KernelCurvesModel

    return KernelCurvesModel.build_request(KernelCurvesModel.parse(state))


def test_the_model_builds_the_kernel_choice():
    req = request_of({})
    assert [s.name for s in req.specs] == ["arccos1", "ntk"]
    req = request_of({"kernels": ["ntk", "nngp"], "depth": 3, "extra_depths": [5, 3],
                      "overlay": True, "width": 50})
    assert [(s.name, s.depth) for s in req.specs] == [("ntk", 3), ("ntk", 5), ("nngp", 3),
                                                      ("nngp", 5)]
    assert req.width == 50


@pytest.mark.parametrize("state, match", [
    ({"extra_depths": [1]}, "extra_depths must be in"),
    ({"extra_depths": ["x"]}, "integer"),
    ({"kernels": []}, "at least one"),
    ({"kernels": ["rbf"]}, "kernels must be among"),
])
def test_kernel_choice_errors(state, match):
    with pytest.raises(ValueError, match=match):
        request_of(state)


# --------------------------------------------------------------------- spectrum
def test_spectrum_ntk_p3_closed_form_and_zeros():
    r = SpectrumRequest(specs=(NTK2,), dim=3, kmax=6)()
    s = r.series[0]
    direct = mercer_spectrum(NTK2, 3, 6)
    np.testing.assert_array_equal(s.mu, direct.mu)
    # the two-layer ReLU NTK on S², closed form: μ = 1/2, 1/3, 5/64, 0, 1/192, 0, 23/16384
    np.testing.assert_allclose(s.mu, [1 / 2, 1 / 3, 5 / 64, 0, 1 / 192, 0, 23 / 16384],
                               rtol=1e-10, atol=1e-15)
    assert list(s.zero) == [False, False, False, True, False, True, False]
    assert list(s.shown) == [True, True, True, False, True, False, True]
    assert not s.unresolved.any()


def test_weighted_spectrum_sum_rule_and_guides():
    """One response holds μ_k and N(p, k) μ_k (weighting only redraws)."""
    r = SpectrumRequest(specs=(K1,), dim=3, kmax=400)()
    s = r.series[0]
    np.testing.assert_allclose(s.y(weighted=True), multiplicity(3, s.k) * s.mu)
    np.testing.assert_array_equal(s.y(weighted=False)[s.shown], s.mu[s.shown])
    assert s.y(weighted=True).sum() == pytest.approx(1.0, abs=1e-4)  # Σ N(p,k) μ_k = κ1(1) = 1
    g = r.guides[0]
    np.testing.assert_allclose(10 ** g.log10_of(True), g.C * g.k ** g.exponent * multiplicity(3, g.k))
    # the weighted slopes are those of N(p, k) μ_k, from the values themselves
    k, slope = s.slopes(weighted=True)
    y = multiplicity(3, s.k) * s.mu
    for kk, sl in zip(k[:20], slope[:20]):
        a, b = int(kk) - 1, int(kk) + 1
        assert sl == pytest.approx(math.log(y[b] / y[a]) / math.log(b / a), rel=1e-9)


def test_guides_unweighted_match_core_constants():
    r = SpectrumRequest(specs=(NTK2,), dim=3, kmax=50)()
    c3 = 2 ** 2 * math.gamma(1.5) ** 2 / math.pi ** 2  # C(3) = 1/π
    assert any(g.C == pytest.approx(c3) and g.exponent == -3 for g in r.guides)
    for g in r.guides:
        np.testing.assert_allclose(10 ** g.log10_of(False), g.C * g.k ** g.exponent)


def test_local_slopes_of_power_law_with_parity_zeros():
    k = np.arange(0, 21, dtype=float)
    y = np.where(k % 2 == 0, 3.0 * np.maximum(k, 1) ** -4.0, 0.0)
    shown = y > 0
    kk, s = local_slopes(k, y, shown)
    np.testing.assert_allclose(kk, np.arange(3, 20, 2))
    np.testing.assert_allclose(s, -4.0)


def test_unresolved_classification():
    req = SpectrumRequest(specs=(NTK2,), dim=3, kmax=4)
    from ntkviz.core.spectra.mercer import Spectrum

    fake = Spectrum(k=np.arange(5), multiplicity=np.ones(5),
                    mu=np.array([1.0, 1e-3, 0.0, -1e-17, 1e-8]),
                    error_estimate=np.array([1e-16, 1e-6, 0.0, 1e-16, 1e-16]),
                    exact_zero=np.array([False, False, True, False, False]), dim=3, spec=NTK2,
                    method="x")
    s = req._series(fake, NTK2)
    assert list(s.zero) == [False, False, True, False, False]
    assert list(s.unresolved) == [False, False, False, True, False]  # μ ≤ 0, not exact
    assert list(s.shown) == [True, True, False, False, True]
    strict = SpectrumRequest(specs=(NTK2,), dim=3, kmax=4, rel_tol=5e-4)._series(fake, NTK2)
    assert list(strict.unresolved) == [False, True, False, True, False]  # 1e-6 > 5e-4 · 1e-3


def test_spectrum_csv():
    r = SpectrumRequest(specs=(NTK2, K1), dim=5, kmax=10)()
    header, rows = r.csv_table("spectrum")
    assert header == ["kernel", "p", "k", "N(p,k)", "mu_k", "error_estimate", "y_plotted", "status",
                      "log10_mu", "trustworthy", "log10_trustworthy", "log10_N(p,k)"]
    assert [row[11] for row in rows[:11]] == pytest.approx([math.log10(row[3]) for row in rows[:11]], rel=1e-14)
    assert len(rows) == 22
    assert [row[3] for row in rows[:11]] == [1, 5] + [
        (2 * k + 3) * math.comb(k + 2, 3) // k for k in range(2, 11)]  # N(5, k), exact ints
    assert [row[4] for row in rows[:11]] == list(r.series[0].mu)
    assert {row[7] for row in rows} <= {"shown", "zero", "unresolved"}
    assert [row[10] for row in rows[:11]] == list(r.series[0].log10_trustworthy)
    weighted = r.csv_table("spectrum", weighted=True)[1]
    assert [row[6] for row in weighted[:11]] == pytest.approx(
        [n * mu for n, mu in zip(multiplicity(5, np.arange(11)), r.series[0].mu)], rel=1e-13)
    header, rows = r.csv_table("slope")
    assert len(rows) == sum(len(s.slope) for s in r.series)


@pytest.mark.parametrize("kwargs, match", [
    ({"dim": 1}, "dim"), ({"dim": 1001}, "dim"), ({"kmax": 0}, "kmax"), ({"kmax": 2001}, "kmax"),
    ({"rel_tol": -1}, "rel_tol"),
])
def test_spectrum_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SpectrumRequest(specs=(NTK2,), **kwargs)


def test_spectrum_log_space_at_p_1000():
    """At p = 1000 the eigenvalues and N(p, k) leave the float64 range; the plotted
    log10 values stay finite and exact (N(p, k) vs exact integers, μ_k vs mpmath's Gamma)."""
    import mpmath

    r = SpectrumRequest(specs=(K1,), dim=1000, kmax=2000)()
    s = r.series[0]
    assert np.all(np.isfinite(s.log10_multiplicity))
    for k in (308, 1000, 2000):
        assert s.log10_multiplicity[k] == pytest.approx(
            float(mpmath.log10((2 * k + 998) * mpmath.binomial(k + 997, 998) / k)), rel=1e-14)
    even = np.arange(2, 2001, 2)
    assert np.all(s.shown[even]) and not np.any(s.shown[np.arange(3, 2001, 2)])
    mpmath.mp.dps = 30
    p = 1000
    for k in (400, 2000):  # κ1: p Γ(p/2)² Γ((k-1)/2)² / (8π² Γ((k+p+1)/2)²)
        exact = mpmath.log10(p * mpmath.gamma(p / 2) ** 2 * mpmath.gamma(mpmath.mpf(k - 1) / 2) ** 2
                             / (8 * mpmath.pi ** 2 * mpmath.gamma(mpmath.mpf(k + p + 1) / 2) ** 2))
        assert abs(s.log10_mu[k] - float(exact)) < 1e-6 / math.log(10)  # ≤ 1e-6 relative in μ
        assert s.log10_y(True)[k] == pytest.approx(s.log10_mu[k] + s.log10_multiplicity[k],
                                                   abs=1e-12)
    header, rows = r.csv_table("spectrum")
    assert all(row[8] == "" if row[7] == "zero" else np.isfinite(row[8]) for row in rows)
    # a mu_k that underflowed to 0 (or a subnormal) is never flagged trustworthy in the CSV,
    # while its log10 is (log10_trustworthy, what the panel plots)
    under = [row for row in rows if row[7] != "zero" and abs(row[4]) < np.finfo(float).tiny]
    assert under and not any(row[9] for row in under)
    # ...and the CSV says which of their log10 values are vouched for
    assert [row[10] for row in rows] == list(s.log10_trustworthy)
    assert all(row[10] for row in under if row[7] == "shown" and int(row[2]) % 2 == 0)
    assert np.all(s.log10_trustworthy[even]) and not np.any(s.trustworthy[even][-10:])
    assert rows[1000][3] == (2 * 1000 + 998) * math.comb(1000 + 997, 998) // 1000  # exact int


def test_near_one_csv_has_no_inf_rows_for_a_kernel_infinite_at_one():
    """The step NTK is infinite at u = 1, so 2κ(1) − 2κ(1 − ε) does not exist: the CSV
    says so in the header and leaves the cells empty (no inf rows); other curves unchanged."""
    step = KernelSpec("ntk", 50, 0.0, "step")
    r = KernelCurveRequest(specs=(step, K1), near_one=True, n_near=241)()
    header, rows = r.csv_table("near_one")
    assert "infinite" in header[1] and "infinite" not in header[2]
    assert len(rows) == 241 and all(row[1] == "" for row in rows)
    eps = np.array([row[0] for row in rows])
    gap = np.array([row[2] for row in rows])
    k1 = evaluate_kernel(K1, 1.0 - eps)[0]
    np.testing.assert_allclose(gap, 2.0 - 2.0 * k1, rtol=1e-12)
    assert all(math.isfinite(v) for row in rows for v in row if v != "")


def test_spectrum_iterate_reports_progress_and_can_be_cancelled():
    """Long spectra (new deep activation kernels) report progress per kernel."""
    req = SpectrumRequest(specs=(NTK2, K1, KernelSpec("ntk", 4)), dim=5, kmax=30)
    items = []
    response = run_to_end(req.iterate(), on_item=items.append)
    assert [round(i.fraction, 6) for i in items] == [round(1 / 3, 6), round(2 / 3, 6)]
    direct = req()
    for a, b in zip(response.series, direct.series):
        assert np.array_equal(a.mu, b.mu) and a.label == b.label
    it = req.iterate()
    assert next(it).fraction < 1.0  # stopping here cancels the remaining kernels
    it.close()
