"""Finite-width empirical kernels: convergence ~1/√m to the closed form, and an explicit-network reference."""
import numpy as np
import pytest

from ntkviz.core.kernels import _reference as ref
from ntkviz.core.kernels.dotkernel import KernelSpec, evaluate_kernel
from ntkviz.core.kernels.empirical import empirical_kernels

U = np.array([-0.9, -0.5, 0.0, 0.4, 0.8, 0.95])


def _limit(name, depth, u=U, **kw):
    return evaluate_kernel(KernelSpec(name, depth, **kw), u)[0]


def test_does_not_use_the_closed_form(monkeypatch):
    import ntkviz.core.kernels.activations as act
    import ntkviz.core.kernels.arccos as arc
    import ntkviz.core.kernels.deep as deep

    def boom(*args, **kwargs):
        raise AssertionError("closed form called")

    for mod, name in [(deep, "deep_recursion"), (deep, "deep_kernel"), (arc, "arccos_kernel"),
                      (act, "dual_map"), (act, "dual_tables")]:
        monkeypatch.setattr(mod, name, boom)
    empirical_kernels(U, 16, 3, n_samples=2)


@pytest.mark.parametrize("kind", ["ntk", "nngp"])
def test_error_shrinks_like_inverse_sqrt_width(kind):
    """RMS deviation from the infinite-width limit over networks: log-log slope ≈ −1/2."""
    depth = 3
    widths = 2 ** np.arange(6, 13)  # 64 .. 4096
    limit = _limit(kind, depth)
    rms = []
    for m in widths:
        e = empirical_kernels(U, int(m), depth, seed=11, n_samples=32)
        rms.append(np.sqrt(np.mean((getattr(e, kind) - limit) ** 2)))
    slope = np.polyfit(np.log(widths), np.log(rms), 1)[0]
    assert -0.65 <= slope <= -0.35, (slope, rms)


@pytest.mark.parametrize("kind", ["ntk", "nngp"])
def test_two_layer_mean_is_unbiased(kind):
    """At L = 2 the empirical kernels are averages of i.i.d. features: the mean is exact for any m."""
    e = empirical_kernels(U, 32, 2, seed=3, n_samples=600)
    samples = getattr(e, kind)
    stderr = samples.std(0) / np.sqrt(samples.shape[0])
    assert np.all(np.abs(samples.mean(0) - _limit(kind, 2)) < 5 * stderr)


@pytest.mark.parametrize("activation,bias", [("relu", 0.5), ("tanh", 0.0), ("gelu", 0.3)])
def test_mean_approaches_limit_for_activations_and_bias(activation, bias):
    e = empirical_kernels(U, 2048, 3, seed=5, n_samples=12, activation=activation, bias=bias)
    for kind in ("ntk", "nngp"):
        samples = getattr(e, kind)
        limit = _limit(kind, 3, bias=bias, activation=activation)
        stderr = samples.std(0) / np.sqrt(samples.shape[0])
        # finite-width bias is O(1/m) = O(5e-4), well inside the tolerance
        assert np.all(np.abs(samples.mean(0) - limit) < 5 * stderr + 5e-3)


@pytest.fixture(scope="module")
def explicit_samples():
    """Kernels of 500 explicit networks (every m×m matrix drawn), per (depth, activation, bias)."""
    u = np.array([-0.5, 0.3, 0.9])
    cache = {}

    def get(depth, activation, bias):
        key = (depth, activation, bias)
        if key not in cache:
            cache[key] = np.array([np.concatenate(ref.empirical_reference(
                u, 24, depth, np.random.default_rng(1000 + i), activation, bias)) for i in range(500)])
        return u, cache[key]
    return get


@pytest.mark.parametrize("coupling", ["pairwise", "independent", "shared"])
@pytest.mark.parametrize("depth,activation,bias", [(3, "relu", 0.0), (4, "tanh", 0.3), (3, "gelu", 0.0)])
def test_same_law_as_explicit_networks(explicit_samples, coupling, depth, activation, bias):
    """The conditional samplers against explicit networks: mean and spread at each cosine."""
    u, explicit = explicit_samples(depth, activation, bias)
    m, n = 24, 500
    e = empirical_kernels(u, m, depth, seed=2, n_samples=n, activation=activation, bias=bias,
                          coupling=coupling)
    fast = np.hstack([e.ntk, e.nngp])
    se = np.sqrt(explicit.var(0) / n + fast.var(0) / n)
    assert np.all(np.abs(explicit.mean(0) - fast.mean(0)) < 4.5 * se)
    ratio = fast.std(0) / explicit.std(0)
    assert np.all((ratio > 0.8) & (ratio < 1.25)), ratio


def test_explicit_reference_two_layer_mean():
    """The reference itself is unbiased at L = 2 (checks the reference against the limit)."""
    n = 400
    samples = np.array([ref.empirical_reference(U, 16, 2, np.random.default_rng(i))[0] for i in range(n)])
    stderr = samples.std(0) / np.sqrt(n)
    assert np.all(np.abs(samples.mean(0) - _limit("ntk", 2)) < 5 * stderr)


@pytest.mark.parametrize("coupling", ["independent", "shared"])
def test_other_couplings_have_the_same_limit(coupling):
    e = empirical_kernels(U, 1024, 3, seed=9, n_samples=16, coupling=coupling)
    for kind in ("ntk", "nngp"):
        samples = getattr(e, kind)
        stderr = samples.std(0) / np.sqrt(samples.shape[0])
        assert np.all(np.abs(samples.mean(0) - _limit(kind, 3)) < 5 * stderr + 5e-3)


def test_reproducible_and_sample_order_stable():
    a = empirical_kernels(U, 64, 3, seed=4, n_samples=3)
    b = empirical_kernels(U, 64, 3, seed=4, n_samples=1)
    c = empirical_kernels(U, 64, 3, seed=5, n_samples=1)
    np.testing.assert_array_equal(a.ntk[:1], b.ntk)
    assert not np.allclose(b.ntk, c.ntk)
    assert a.ntk.shape == (3, U.size) and a.nngp.shape == (3, U.size)
    assert (a.width, a.depth, a.seed, a.n_samples) == (64, 3, 4, 3)
    with pytest.raises(ValueError):
        a.ntk[0, 0] = 1.0


def test_dim_does_not_change_the_draw():
    a = empirical_kernels(U, 64, 3, seed=4, dim=2)
    b = empirical_kernels(U, 64, 3, seed=4, dim=50)
    np.testing.assert_array_equal(a.ntk, b.ntk)


@pytest.mark.parametrize("coupling", ["pairwise", "independent", "shared"])
def test_endpoints_finite_and_symmetric_at_one(coupling):
    e = empirical_kernels(np.array([-1.0, 1.0]), 256, 3, seed=1, coupling=coupling)
    assert np.all(np.isfinite(e.ntk)) and np.all(np.isfinite(e.nngp))
    assert e.ntk[0, 1] > 0 and e.nngp[0, 1] > 0


def test_pairwise_curves_are_smooth_and_independent_ones_are_not():
    u = np.linspace(-0.5, 0.5, 201)
    smooth = empirical_kernels(u, 512, 3, seed=3).ntk[0]
    jagged = empirical_kernels(u, 512, 3, seed=3, coupling="independent").ntk[0]
    assert np.abs(np.diff(smooth)).max() < 0.2 * np.abs(np.diff(jagged)).max()


@pytest.mark.parametrize("kwargs,match", [
    (dict(width=0), "width"), (dict(depth=1), "depth"), (dict(depth=51), "depth"),
    (dict(seed=-1), "seed"), (dict(n_samples=0), "n_samples"), (dict(dim=1), "dim"),
    (dict(activation="swish"), "activation"), (dict(bias=-1.0), "bias"),
    (dict(coupling="weird"), "coupling"), (dict(u=[1.5]), "u must"),
])
def test_bad_arguments(kwargs, match):
    args = dict(u=U, width=8, depth=2) | kwargs
    with pytest.raises(ValueError, match=match):
        empirical_kernels(**args)
