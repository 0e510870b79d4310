"""Spectra of finite Gram matrices against NumPy's ``eigh`` and the definitions, and the
sphere reference against the spectrum of a quasi-uniform point set."""
import numpy as np
import pytest

from ntkviz.core import KernelSpec
from ntkviz.core.learning import centred_one_hot, gram_spectrum, sphere_reference
from ntkviz.core.learning._krr import gram
from ntkviz.core.learning._reference import gram_spectrum_reference
from ntkviz.core.learning.gram_spectrum import EPS, MAX_GRAM_SIZE, check_gram


def _features_gram(n, rank, seed):
    x = np.random.default_rng(seed).standard_normal((n, rank))
    return x @ x.T


@pytest.mark.parametrize("seed", [0, 1])
def test_spectrum_and_alignment_equal_numpy_and_definitions(seed):
    rng = np.random.default_rng(seed)
    n = 40
    K = _features_gram(n, 60, seed)
    labels = rng.integers(0, 4, n)
    sp = gram_spectrum(K, labels)
    values, cumulative, kta = gram_spectrum_reference(K, labels)
    np.testing.assert_allclose(sp.eigenvalues, values, rtol=1e-12, atol=1e-14 * values[0])
    np.testing.assert_allclose(sp.cumulative_alignment, cumulative, rtol=1e-10)
    assert sp.target_alignment == pytest.approx(kta, rel=1e-12)
    assert sp.cumulative_alignment[-1] == pytest.approx(1.0, rel=1e-13)
    # Σ λ_i / N = tr K / N, the trace taken from the matrix
    assert sp.trace == np.trace(K)
    assert sp.eigenvalues.sum() * n == pytest.approx(np.trace(K), rel=1e-13)
    assert sp.frobenius == pytest.approx(np.linalg.norm(K), rel=1e-13)


def test_kernel_target_alignment_extremes():
    labels = np.array([0, 0, 1, 1, 2, 2])
    y, _ = centred_one_hot(labels)
    # K = YYᵀ aligns perfectly; the identity has the alignment ‖Y‖_F² / (√N ‖YᵀY‖_F)
    assert gram_spectrum(y @ y.T + 0.0, labels).target_alignment == pytest.approx(1.0, rel=1e-12)
    ident = gram_spectrum(np.eye(6), labels).target_alignment
    assert ident == pytest.approx(np.sum(y * y) / (np.sqrt(6) * np.linalg.norm(y.T @ y)), rel=1e-12)


def test_rank_deficient_gram_flags_the_floor_and_negatives():
    n, rank = 50, 7
    K = _features_gram(n, rank, 3)
    sp = gram_spectrum(K)
    lam = sp.eigenvalues * n
    floor = n * EPS * np.max(np.abs(lam))
    assert sp.floor == pytest.approx(floor / n)
    np.testing.assert_array_equal(sp.trustworthy, lam > floor)
    assert sp.trustworthy[:rank].all() and not sp.trustworthy[rank:].any()
    assert np.all(np.isfinite(sp.eigenvalues)) and sp.cumulative_alignment is None
    # a matrix with a clearly negative eigenvalue (not a kernel): that eigenvalue is untrusted
    bad = gram_spectrum(K - 0.5 * np.trace(K) / n * np.eye(n))
    assert (bad.eigenvalues < 0).any() and not bad.trustworthy[bad.eigenvalues < 0].any()


def test_overwrite_gives_the_same_spectrum_and_uses_the_matrix():
    K = _features_gram(30, 40, 5)
    expected = gram_spectrum(K)
    work = K.copy()
    got = gram_spectrum(work, overwrite=True)
    np.testing.assert_array_equal(got.eigenvalues, expected.eigenvalues)
    assert got.trace == np.trace(K)
    assert not np.array_equal(work, K)  # LAPACK wrote its result over the matrix


@pytest.mark.parametrize("matrix, match", [
    (np.ones((3, 4)), "square"),
    (np.ones(4), "square"),
    (np.ones((1, 1)), r"size N must be in \[2, 20000\]"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "finite"),
    (np.array([[1.0, 0.5], [0.4, 1.0]]), "symmetric"),
    (np.array([["a", "b"], ["c", "d"]]), "real numbers"),
])
def test_bad_matrices_are_refused(matrix, match):
    with pytest.raises(ValueError, match=match):
        gram_spectrum(matrix)


def test_size_limit_is_stated():
    assert MAX_GRAM_SIZE == 20000
    with pytest.raises(ValueError, match="8 N²"):
        check_gram(np.zeros((2, 2)).reshape(2, 2)[:1, :1])


def test_labels_are_checked():
    K = np.eye(4)
    with pytest.raises(ValueError, match="one entry per Gram row"):
        gram_spectrum(K, np.array([0, 1, 0]))
    with pytest.raises(ValueError, match="at least 2 classes"):
        gram_spectrum(K, np.zeros(4, dtype=int))
    with pytest.raises(ValueError, match="integer"):
        gram_spectrum(K, np.array([0.0, 1.0, 0.0, 1.0]))


def test_centred_one_hot():
    y, classes = centred_one_hot(np.array([3, 1, 3, 3]))
    np.testing.assert_array_equal(classes, [1, 3])
    np.testing.assert_allclose(y, [[-0.25, 0.25], [0.75, -0.75], [-0.25, 0.25], [-0.25, 0.25]])


def test_sphere_reference_matches_quasi_uniform_points(fibonacci_sphere):
    # κ1 on S²: the spectrum of 900 quasi-uniform points is the Mercer spectrum (μ_0 = 3/8,
    # μ_1 = 1/6 three times, ...) to ~5e-4; degree 3 is an exact zero and sorts last
    spec, count = KernelSpec("arccos1"), 900
    x = fibonacci_sphere(count)
    data = gram_spectrum(gram(spec, x, x))
    ref = sphere_reference(spec, 3, count, trace=data.trace / count)
    assert ref.dim == 3 and "S^2" in ref.label
    top = 1 + 3 + 5 + 9  # degrees 0, 1, 2, 4
    np.testing.assert_allclose(data.eigenvalues[:top], ref.eigenvalues[:top], rtol=2e-3)
    assert ref.eigenvalues[0] == pytest.approx(3 / 8, rel=1e-12)
    # κ1 decays like k^{-p-2} per degree: λ_i ~ i^{-(p+2)/(p-1)} in the index
    assert ref.exponent == pytest.approx(5 / 2)
    assert ref.eigenvalues.shape == (count,) and np.all(np.diff(ref.eigenvalues) <= 0)


def test_sphere_reference_scale_and_ntk_exponent():
    # κ1 on S²: 20,000 eigenvalues reach degree ~140, beyond which μ_k ~ k^-5 leaves < 1e-6 of κ(1):
    # the list sums to the trace asked for
    ref = sphere_reference(KernelSpec("arccos1"), 3, 20000, trace=2.0)
    assert ref.eigenvalues.sum() == pytest.approx(2.0, rel=1e-5)
    assert ref.eigenvalues.sum() <= 2.0 * (1 + 1e-12)
    # the deep NTK decays like k^-p per degree: λ_i ~ i^{-p/(p-1)} in the index
    ntk = sphere_reference(KernelSpec("ntk", 3), 9, 500, trace=1.0)
    assert ntk.exponent == pytest.approx(9 / 8)
    assert ntk.eigenvalues.sum() < 1.0
