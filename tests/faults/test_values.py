"""Extreme values: tiny pixels never give a Gram matrix of zeros that looks like a result,
target coefficients whose powers overflow are refused, and valid extreme requests run
without numpy RuntimeWarnings and with finite, right results.

Independent computations: the conv kernels are homogeneous of degree 2 (``K(c x, c y) =
c² K(x, y)``), checked against the same images at ordinary scale; the bounded-norm
approximation error against a log-space evaluation written here."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

from faultlib import assert_finite_csv, error_line, run_cli

MODEL = [{"npatch": 3, "subsampling": 2}]


@pytest.fixture(scope="module")
def images():
    return np.random.default_rng(8).random((5, 8, 8))


@pytest.fixture(scope="module")
def arch():
    from ntkviz.core.conv.architecture import architecture_from_dict

    return architecture_from_dict(MODEL)


# ------------------------------------------------------------------ 6. tiny pixels
@pytest.mark.parametrize("scale", [1e-300, 1e-310], ids=["1e-300", "1e-310 (subnormal)"])
def test_pixels_too_small_for_float64_kernels_are_refused(scale, images, tmp_path, capsys):
    """K ~ scale² is below the float64 range: refused with the reason, nothing written."""
    np.save(tmp_path / "tiny.npy", images * scale)
    (tmp_path / "m.json").write_text(json.dumps(MODEL))
    for out in ("K.npy", "K.zarr"):
        code, _, err = run_cli(["gram", "--model", tmp_path / "m.json", "--mode", "ntk", "--images",
                                tmp_path / "tiny.npy", "--out", tmp_path / out], capsys)
        line = error_line(err)
        assert code == 2 and "below the float64 range" in line and "rescale the images" in line, line
        assert not (tmp_path / "K.npy").exists()


@pytest.mark.parametrize("scale", [2.0 ** -500, 1e-5, 3e-7], ids=["2^-500", "1e-5", "3e-7"])
def test_small_pixels_give_the_homogeneous_kernel(scale, images, arch):
    """Tiles and the whole-matrix engine: K(s x) = s² K(x) to rounding (the reference
    convention's norm floor 1e-6 no longer turns small images into a kernel of their norms)."""
    from ntkviz.core.conv.gram import gram_matrix
    from ntkviz.dataset import compute_gram

    small = images * scale
    for kind in ("ckn", "ntk"):
        K = gram_matrix(images, arch, kind)
        np.testing.assert_allclose(gram_matrix(small, arch, kind), K * scale * scale, rtol=1e-12)
        np.testing.assert_allclose(compute_gram(small, None, arch, (kind,), tile=2)[kind], K * scale * scale,
                                   rtol=1e-12)


def test_gram_says_when_it_rescaled(images, tmp_path, capsys):
    np.save(tmp_path / "small.npy", images * 2.0 ** -500)
    (tmp_path / "m.json").write_text(json.dumps(MODEL))
    code, _, err = run_cli(["gram", "--model", tmp_path / "m.json", "--mode", "ckn", "--images",
                            tmp_path / "small.npy", "--out", tmp_path / "K.npy"], capsys)
    assert code == 0, err
    summary = [ln for ln in err.replace("\r", "\n").splitlines() if "tile(s)" in ln][-1]
    power = 1 - math.frexp(float(np.max(images * 2.0 ** -500)))[1]  # brings the largest pixel into [1, 2)
    assert f"images scaled by 2^{power} " in summary, summary
    assert np.all(np.load(tmp_path / "K.npy") > 0)


# ------------------------------------------------------------------ 7. target powers that overflow
@pytest.mark.parametrize("target", ["1:1e300", "1:1,2:-1e200", "3:1e101"])
def test_target_coefficients_beyond_the_range_are_refused(target, tmp_path, capsys):
    for argv in (["learn", "--kernels", "ntk", "--dim", "3", "--n", "10", "--no-empirical"],
                 ["export", "learning", "--dim", "3"]):
        code, _, err = run_cli([*argv, f"--target={target}", "--out", tmp_path / "c.csv"], capsys)
        line = error_line(err)
        assert code == 2 and "target" in line and "1e+100" in line, line
        assert not (tmp_path / "c.csv").exists()
    from ntkviz.models.learning import LearningParams

    with pytest.raises(ValueError, match="1e\\+100"):
        LearningParams(target=target)


def test_largest_target_coefficient_gives_finite_curves(tmp_path, capsys):
    out = tmp_path / "c.csv"
    code, _, err = run_cli(["learn", "--kernels", "ntk,arccos1", "--dim", "3", "--n", "20,50", "--seeds", "2",
                            "--n-test", "200", "--target=1:1e100,2:-1e100", "--out", out], capsys)
    assert code == 0, err
    assert_finite_csv(out)


# ------------------------------------------------------------------ 8. no RuntimeWarning at valid extremes
def test_spectrum_of_large_bias_at_p1000_warns_nothing(tmp_path, capsys):
    out = tmp_path / "s.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, _, err = run_cli(["spectrum", "--name", "nngp", "--activation", "gelu", "--bias", "100",
                                "--dim", "1000", "--kmax", "2000", "--out", out], capsys)
    assert code == 0, err
    assert err.strip() == ""
    from ntkviz.core import KernelSpec
    from ntkviz.core.spectra.mercer import mercer_spectrum

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sp = mercer_spectrum(KernelSpec("nngp", 2, 100.0, "gelu"), 1000, 2000)
    trusted = np.asarray(sp.trustworthy)
    mu, est = np.asarray(sp.mu), np.asarray(sp.error_estimate)
    assert np.all(np.isfinite(mu)) and np.all(np.isfinite(est))
    tiny = np.finfo(float).tiny
    assert np.all(mu[trusted & ~np.asarray(sp.exact_zero)] >= tiny)  # trusted values are normal floats
    assert np.all(est[trusted] <= 1e-6 * mu[trusted] + (mu[trusted] == 0))


def _approximation_error_log_space(spectrum, projection, bounds):
    """A(B) = Σ P_k (λ/(μ_k+λ))² with Σ P_k μ_k/(μ_k+λ)² = B², every sum in log space
    (logaddexp; no overflow or underflow), λ by bisection on ln λ."""
    from ntkviz.core.learning._theory import spectrum_weights

    _, mu = spectrum_weights(spectrum)
    power = projection.power
    keep = (power > 0) & (mu > 0)
    lp, lm = np.log(power[keep]), np.log(mu[keep])
    extra = float(power[mu == 0.0].sum()) + projection.tail_power
    out = []
    for b in bounds:
        def log_norm(ll):  # ln Σ P μ/(μ+λ)²
            return np.logaddexp.reduce(lp + lm - 2.0 * np.logaddexp(lm, ll))
        if 2 * math.log(b) >= log_norm(-1e4):
            out.append(extra)
            continue
        lo, hi = -2000.0, 2000.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if log_norm(mid) > 2 * math.log(b) else (lo, mid)
        ll = 0.5 * (lo + hi)
        out.append(math.exp(np.logaddexp.reduce(lp + 2.0 * (ll - np.logaddexp(lm, ll)))) + extra)
    return np.array(out)


@pytest.mark.parametrize("kernels,target", [(("arccos0",), "step:0"), (("arccos1",), "ridge:0.5"),
                                            (("ntk",), "abs")])
def test_generalisation_at_p1000_warns_nothing_and_is_right(kernels, target):
    from ntkviz.models.learning import LearningModel, LearningParams

    params = LearningParams(kernels=kernels, target=target, dim=1000, kmax=2000, n=100_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        response = LearningModel.build_request(params)()
    approx = response.approximation[0]
    assert np.all(np.isfinite(approx))
    theory = response.theory
    want = _approximation_error_log_space(theory.spectra[0], theory.projection, response.bounds)
    np.testing.assert_allclose(approx, want, rtol=1e-8)
