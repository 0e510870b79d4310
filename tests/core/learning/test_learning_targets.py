"""Targets: Gegenbauer recurrence vs scipy, Funk–Hecke powers vs mpmath quadrature."""
import math

import mpmath
import numpy as np
import pytest
from scipy.special import eval_chebyt, eval_gegenbauer

from ntkviz.core.learning import Target, gegenbauer, log_gegenbauer


@pytest.mark.parametrize("q", [2, 3, 5, 12])
def test_gegenbauer_matches_scipy(q):
    t = np.linspace(-1, 1, 41)
    ours = gegenbauer(q, 30, t)
    for k in range(31):
        ref = eval_chebyt(k, t) if q == 2 else eval_gegenbauer(k, (q - 2) / 2, t) / eval_gegenbauer(k, (q - 2) / 2, 1.0)
        np.testing.assert_allclose(ours[k], ref, atol=1e-12)


def test_log_gegenbauer_far_below_float_range():
    # large dimension and degree near t = 0: |P_k| far below 1e-308; compare to mpmath
    q, k, t = 1000, 2000, 0.02
    sign, logabs = log_gegenbauer(q, k, t)
    mpmath.mp.dps = 40
    lam = mpmath.mpf(q - 2) / 2
    ref = mpmath.gegenbauer(k, lam, mpmath.mpf(t)) / mpmath.gegenbauer(k, lam, 1)
    assert float(mpmath.log(abs(ref))) < -708  # below the float64 range
    assert sign[k] == float(mpmath.sign(ref))
    assert abs(logabs[k] - float(mpmath.log(abs(ref)))) < 1e-9 * abs(logabs[k])


def _mp_coefficient(kind, t, p, k):
    """E_u[g(u) P_k(u)] by mpmath quadrature in θ (u = cos θ), split at the kink."""
    mpmath.mp.dps = 30
    lam = mpmath.mpf(p - 2) / 2
    norm = 1 if p == 2 else mpmath.gegenbauer(k, lam, 1)

    def pk(u):
        return mpmath.chebyt(k, u) if p == 2 else mpmath.gegenbauer(k, lam, u) / norm

    g = {"ridge": lambda u: max(u - t, 0), "step": lambda u: 1 if u > t else -1,
         "abs": lambda u: abs(u)}[kind]
    c = mpmath.gamma(mpmath.mpf(p) / 2) / (mpmath.sqrt(mpmath.pi) * mpmath.gamma(mpmath.mpf(p - 1) / 2))
    f = lambda th: g(mpmath.cos(th)) * pk(mpmath.cos(th)) * mpmath.sin(th) ** (p - 2)  # noqa: E731
    kink = mpmath.acos(t if kind != "abs" else 0)
    pieces = np.linspace(0, float(kink), 6).tolist() + np.linspace(float(kink), math.pi, 6)[1:].tolist()
    return c * mpmath.quad(f, pieces)


@pytest.mark.parametrize("kind,t,p", [("ridge", 0.3, 3), ("ridge", -0.4, 6), ("step", 0.2, 3),
                                      ("step", 0.5, 2), ("abs", 0.0, 5), ("ridge", 0.1, 2)])
def test_funk_hecke_powers_match_mpmath(kind, t, p):
    proj = Target(kind=kind, threshold=t).projection(p, 25)
    coef = proj.coefficient
    for k in (0, 1, 2, 3, 8, 17, 25):
        ref = float(_mp_coefficient(kind, t, p, k))
        assert abs(coef[k] - ref) <= 1e-10 * max(abs(ref), 1e-12) + 1e-15, (k, coef[k], ref)


def test_tail_power_keeps_relative_accuracy():
    # high dimension, high degree: a_k ~ 1e-18, float quadrature would lose every digit
    proj = Target(kind="ridge", threshold=0.2).projection(40, 60)
    ref = _mp_coefficient("ridge", 0.2, 40, 60)
    assert abs(ref) < 1e-16  # below float64 quadrature noise of an O(1) integrand
    assert abs(math.exp(proj.log_abs_coef[60]) / abs(float(ref)) - 1) < 1e-9


@pytest.mark.parametrize("kind,t,p", [("ridge", 0.3, 3), ("step", 0.2, 4), ("abs", 0.0, 7)])
def test_total_power_is_sum_of_degree_powers(kind, t, p):
    proj = Target(kind=kind, threshold=t).projection(p, 2000)
    # Parseval: total power (closed form) = Σ_k power (Funk–Hecke) + a small tail
    assert abs(proj.total_power - proj.power.sum()) < (2e-3 if kind == "step" else 1e-8)


def test_components_power_and_values():
    target = Target(components=((2, 3.0), (5, -1.0)))
    proj = target.projection(4, 10)
    # N(4, k) = (k + 1)²
    assert proj.power[2] == pytest.approx(9.0 / 9) and proj.power[5] == pytest.approx(1.0 / 36)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((200_000, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    values = target.evaluate(x, target.directions(4, 0))
    assert np.mean(values ** 2) == pytest.approx(proj.total_power, rel=0.02)


@pytest.mark.parametrize("bad", [dict(components=((-1, 1.0),)), dict(components=((1, float("nan")),)),
                                 dict(kind="ridge", threshold=1.5), dict(kind="nope")])
def test_bad_targets_refused(bad):
    with pytest.raises(ValueError):
        Target(**bad)
