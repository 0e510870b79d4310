"""Eigenlearning on a finite spectrum and kernel regression on subsets of a pool, against
independent routes: a brentq root and term-by-term sums, explicit solves for YᵀH⁻¹Y, the
pseudo-inverse, and the sphere's Mercer-spectrum theory for points on S²."""
import numpy as np
import pytest

from ntkviz.core import KernelSpec, kernel_at_one, mercer_spectrum
from ntkviz.core.learning import (Target, centred_one_hot, finite_learning_theory, learning_theory,
                                  subset_fit, uniform_sphere)
from ntkviz.core.learning._krr import gram
from ntkviz.core.learning._reference import finite_theory_reference, subset_fit_reference
from ntkviz.core.learning.gram_spectrum import decompose


@pytest.mark.parametrize("ridge", [0.0, 1e-4, 0.3])
def test_finite_theory_equals_reference(ridge):
    rng = np.random.default_rng(1)
    mu = np.sort(rng.pareto(1.5, 300) + 1e-3)[::-1] / 300
    mu[-20:] = 0.0  # untrusted eigenvalues passed as 0: never learned
    power = rng.random(300) * mu ** 0.5
    ns = (1, 7, 50, 200, 279)
    th = finite_learning_theory(mu, power, ns, ridge, pool_size=300)
    for i, n in enumerate(ns):
        ref = finite_theory_reference(mu, power, n, ridge)
        assert th.effective_ridge[i] == pytest.approx(ref["kappa"], rel=1e-10)
        assert th.e0[i] == pytest.approx(ref["e0"], rel=1e-9)
        assert th.test_mse[i] == pytest.approx(ref["test"], rel=1e-9)
        assert th.train_mse[i] == pytest.approx(ref["train"], rel=1e-9, abs=1e-300)
        # the pool's mean error is the n training points' and the N - n others' mean
        pooled = (n * th.train_mse[i] + (300 - n) * th.heldout_mse[i]) / 300
        assert pooled == pytest.approx(th.test_mse[i], rel=1e-12)


def test_interpolation_beyond_the_positive_eigenvalues_has_no_prediction():
    mu = np.array([1.0, 0.5, 0.25, 0.0])
    th = finite_learning_theory(mu, np.ones(4), (1, 2, 3, 4), 0.0, pool_size=5)
    assert np.all(np.isfinite(th.test_mse[:2])) and np.all(np.isnan(th.test_mse[2:]))
    assert np.all(np.isfinite(finite_learning_theory(mu, np.ones(4), (3, 4), 0.1).test_mse))


def test_finite_theory_refuses_bad_input():
    with pytest.raises(ValueError, match=">= 0"):
        finite_learning_theory(np.array([1.0, -1.0]), np.ones(2), (1,), 0.0)
    with pytest.raises(ValueError, match="one length"):
        finite_learning_theory(np.ones(3), np.ones(2), (1,), 0.0)
    with pytest.raises(ValueError, match="ridge"):
        finite_learning_theory(np.ones(3), np.ones(3), (1,), -1.0)
    with pytest.raises(ValueError, match="n_values"):
        finite_learning_theory(np.ones(3), np.ones(3), (0,), 0.0)


def _theory_from_points(spec, x, target, z, ns, ridge):
    w, v = decompose(gram(spec, x, x))
    y = target.evaluate(x, z)
    n_pool = x.shape[0]
    return finite_learning_theory(np.maximum(w, 0.0) / n_pool, (v.T @ y) ** 2 / n_pool, ns, ridge).test_mse


def test_pool_prediction_approaches_the_mercer_prediction_on_the_sphere(fibonacci_sphere):
    # the same kernel and target, predicted from the Mercer spectrum (exact degree powers) and from
    # the Gram matrix of N quasi-uniform points on S² (a spherical Fibonacci lattice, whose empirical
    # measure converges to the uniform one much faster than random draws): the gap closes as N grows
    spec, target, ns, ridge = KernelSpec("arccos1"), Target(components=((1, 1.0), (2, 0.7), (3, 0.5))), \
        np.array([10, 20, 40]), 1e-2
    z = target.directions(3, 0)
    proj = target.projection(3, 400)
    mercer = learning_theory(mercer_spectrum(spec, 3, 400), kernel_at_one(spec), proj.power,
                             proj.tail_power, ns, ridge, 0.0).test_mse
    gaps = [np.max(np.abs(_theory_from_points(spec, fibonacci_sphere(m), target, z, ns, ridge) / mercer - 1))
            for m in (100, 300, 900)]
    assert gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 2e-4, gaps


def test_pool_prediction_from_random_uniform_points_on_a_higher_sphere():
    # i.i.d. uniform points on S⁴ (p = 5), NTK, target degrees 1 and 2: the pool prediction, averaged
    # over three pools, moves towards the Mercer one as N grows (slowly: a random pool's spectrum and
    # label powers carry O(1/√N) errors, and the pool prediction sits below the Mercer one)
    spec, target, ns, ridge, p = KernelSpec("ntk"), Target(components=((1, 1.0), (2, 1.0))), \
        np.array([20, 60]), 1e-2, 5
    proj = target.projection(p, 300)
    mercer = learning_theory(mercer_spectrum(spec, p, 300), kernel_at_one(spec), proj.power,
                             proj.tail_power, ns, ridge, 0.0).test_mse
    gaps = []
    for m in (100, 800):
        errs = []
        for seed in range(3):
            x = uniform_sphere(np.random.default_rng([seed, m]), m, p)
            z = target.directions(p, seed)
            errs.append(_theory_from_points(spec, x, target, z, ns, ridge) / mercer - 1)
        gaps.append(np.max(np.abs(np.mean(errs, axis=0))))
    assert gaps[1] < 0.5 * gaps[0] and gaps[1] < 0.15, gaps


def _pool(n_pool, seed, rank=None):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_pool, rank or 2 * n_pool))
    K = x @ x.T + (0.0 if rank else 0.1)
    K /= np.trace(K) / n_pool
    labels = rng.integers(0, 3, n_pool)
    return K, labels


@pytest.mark.parametrize("ridge", [0.0, 0.05])
def test_subset_fit_equals_explicit_solves(ridge):
    K, labels = _pool(40, 2)
    y, classes = centred_one_hot(labels)
    cls = np.searchsorted(classes, labels)
    perm = np.random.default_rng(9).permutation(40)
    y2, cls2 = y[perm], cls[perm]
    train = np.random.default_rng(3).choice(40, 25, replace=False)
    fit = subset_fit(K, train, ridge, (y, y2), (cls, cls2))
    assert not fit.pseudo_inverse
    for i, (yy, cc) in enumerate(((y, cls), (y2, cls2))):
        ref = subset_fit_reference(K, train, ridge, yy, cc)
        assert fit.certificate[i] == pytest.approx(ref["certificate"], rel=1e-9)
        assert fit.test_mse[i] == pytest.approx(ref["test_mse"], rel=1e-9)
        assert fit.accuracy[i] == ref["accuracy"]
    assert fit.lambda_min == pytest.approx(subset_fit_reference(K, train, ridge, y, cls)["lambda_min"],
                                           rel=1e-9)


def test_singular_subset_uses_the_pseudo_inverse():
    # rank-5 kernel: any subset of 12 points has a singular H; the certificate and predictions
    # are those of numpy.linalg.pinv, finite (no NaN at ridge 0)
    K, labels = _pool(30, 4, rank=5)
    y, classes = centred_one_hot(labels)
    cls = np.searchsorted(classes, labels)
    train = np.arange(12)
    fit = subset_fit(K, train, 0.0, (y,), (cls,))
    assert fit.pseudo_inverse
    h = K[np.ix_(train, train)]
    pinv = np.linalg.pinv(h, rcond=12 * np.finfo(float).eps, hermitian=True)
    quad = np.sum(y[train] * (pinv @ y[train]))
    assert fit.certificate[0] == pytest.approx(np.sqrt(4 * quad / 12), rel=1e-6)
    rest = np.arange(12, 30)
    pred = K[np.ix_(rest, train)] @ pinv @ y[train]
    assert fit.test_mse[0] == pytest.approx(np.mean(np.sum((pred - y[rest]) ** 2, axis=1)), rel=1e-6)
    assert np.isfinite(fit.lambda_min) and abs(fit.lambda_min) < 1e-12
