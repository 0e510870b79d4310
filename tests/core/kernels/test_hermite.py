"""Hermite coefficients of activations against mpmath quadrature and closed forms."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from ntkviz.core.kernels import _hermite


@pytest.mark.parametrize("n", [1, 31])
def test_hermite_coefficients_against_mpmath(n):
    """a_n = E[tanh(z) h_n(z)] to ~1e-16 absolute (an 800-node Gauss–Hermite rule: ~3e-15)."""
    a, second = _hermite.hermite_coefficients(np.tanh, 1.0, n + 1)
    with mp.workdps(25):
        def integrand(z):  # negligible (< 1e-40) beyond |z| = 20
            h = mp.hermite(n, z / mp.sqrt(2)) * 2 ** (-mp.mpf(n) / 2) / mp.sqrt(mp.factorial(n))
            return mp.tanh(z) * h * mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)

        expected = mp.quad(integrand, mp.linspace(-20, 20, 41))
    assert abs(a[n] - float(expected)) <= 5e-16


def test_hermite_coefficients_gelu_closed_forms():
    """GELU z Φ(z): a_0 = E[φ(z)] = 1/(2√π), a_1 = E[z² Φ(z)] = 1/2."""
    from scipy.special import ndtr

    a, _ = _hermite.hermite_coefficients(lambda z: z * ndtr(z), 1.0, 4)
    tol = 4e-16  # a few ulps: a sum of ~6000 terms in BLAS order
    assert a[0] == pytest.approx(1 / (2 * math.sqrt(math.pi)), abs=tol)
    assert a[1] == pytest.approx(0.5, abs=tol)
    assert a[3] == pytest.approx(0.0, abs=tol)  # odd part of GELU is z/2
