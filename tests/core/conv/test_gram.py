"""Exact CKN / convolutional NTK: oracle values (albietz/ckn_kernel HEAD), NumPy reference, edge cases."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ntkviz.core.conv._reference import reference_kernels
from ntkviz.core.conv.architecture import (PRESETS, Architecture, Layer, architecture_from_dict,
                                           architecture_to_dict, numbered_layer, patch_offsets,
                                           pooling_matrix)
from ntkviz.core.conv.gram import cross_kernels, gram_iter, gram_matrix, image_norms, rel_distances
from ntkviz.core.deformations.digits import load_digits

MODEL_MODES = [("M1", "ckn"), ("M1", "ntk"), ("M2", "ckn"), ("M2", "ntk"), ("M3", "ckn"), ("M3", "ntk"),
               ("M4", "ckn")]


@pytest.fixture(scope="module")
def oracle(data_dir):
    z = np.load(data_dir / "ckn_kernel_first12.npz")
    meta = json.loads((data_dir / "ckn_kernel_first12.json").read_text())
    return {k: z[k] for k in z.files}, meta


@pytest.fixture(scope="module")
def digits12(oracle):
    return oracle[0]["images_first12"].astype(np.float64)[..., None] / 255.0


def _rel_err(a, b):
    return np.abs(np.asarray(a) - np.asarray(b)) / np.abs(np.asarray(b))


def _mode_index(mode):
    return 0 if mode == "ckn" else 1


# --------------------------------------------------------------------------- oracle
@pytest.mark.parametrize("model,mode", MODEL_MODES)
def test_gram_matches_oracle(oracle, digits12, model, mode):
    z, _ = oracle
    K_ref = z[f"{model}_{mode}_first12_K"]
    K = gram_matrix(digits12, PRESETS[model], mode)
    off = ~np.eye(12, dtype=bool)
    assert _rel_err(K, K_ref)[off].max() <= 1e-12
    # NTK self-pairs: the reference code's are 1.6-4e-9 too small (kappa0 at 1 - ulp); ours
    # are exact (test_every_entry_matches_an_exact_computation), so larger by about that
    if mode == "ntk":
        assert np.all(np.diag(K) >= np.diag(K_ref))
    assert _rel_err(np.diag(K), np.diag(K_ref)).max() <= (5e-9 if mode == "ntk" else 1e-12)
    assert np.array_equal(K, K.T)
    eig = np.linalg.eigvalsh(K)
    assert eig.min() > -1e-12 * eig.max()


@pytest.mark.parametrize("model,mode", MODEL_MODES)
def test_ordered_pairs_and_distances_match_oracle(oracle, digits12, model, mode):
    z, _ = oracle
    arch = PRESETS[model]
    norms = [image_norms(x, arch) for x in digits12]
    K_ref = z[f"{model}_{mode}_first12_K"]
    m = _mode_index(mode)
    K = np.array([[cross_kernels(a, b, arch)[m] for b in norms] for a in norms])
    off = ~np.eye(12, dtype=bool)
    assert _rel_err(K, K_ref)[off].max() <= 1e-12          # every ordered pair, as the reference computed it
    self_tol = 5e-9 if mode == "ntk" else 1e-12  # the reference's NTK self-pairs are too small
    assert _rel_err(np.diag(K), np.diag(K_ref)).max() <= self_tol
    selfk = np.array([n.k_ntk if mode == "ntk" else n.k_ckn for n in norms])
    assert _rel_err(selfk, np.diag(K_ref)).max() <= self_tol
    # compute_dist_to_ref arrays: ref = image 0
    assert _rel_err(selfk[0], z[f"{model}_{mode}_first12_k00"]) <= self_tol
    assert _rel_err(K[0, 1:], z[f"{model}_{mode}_first12_kxy"]).max() <= 1e-12
    assert _rel_err(selfk[1:], z[f"{model}_{mode}_first12_kyy"]).max() <= self_tol
    dist = np.sqrt(np.maximum(selfk[0] + selfk[1:] - 2 * K[0, 1:], 0.0))
    dist_ref = z[f"{model}_{mode}_first12_dist"]
    assert _rel_err(dist, dist_ref).max() <= (1e-8 if mode == "ntk" else 1e-11)
    rel = np.array([rel_distances(norms[0], n, arch)[m] for n in norms[1:]])
    assert _rel_err(rel, dist_ref / np.sqrt(z[f"{model}_{mode}_first12_k00"])).max() <= \
        (1e-8 if mode == "ntk" else 1e-11)


def test_bundled_digits_are_the_oracle_digits(oracle):
    images, _ = load_digits()
    assert np.array_equal(images[:12], oracle[0]["images_first12"])


@pytest.mark.parametrize("model", ["M1", "M2", "M3", "M4"])
def test_layer_sizes_and_models_match_oracle_json(oracle, model):
    meta = oracle[1]
    arch = architecture_from_dict(meta["models"][model])
    assert arch == PRESETS[model]
    sizes = arch.layer_sizes(28, 28)
    assert [[i[0], c[0], p[0]] for i, c, p in sizes] == meta["layer_sizes_(in,conv,pool)"][model]
    assert architecture_from_dict(architecture_to_dict(arch)) == arch
    assert arch.supports_ntk == ("ntk" in meta["modes"][model])


# --------------------------------------------------------------------------- NumPy reference
REF_CASES = [
    ("M1 non-square 2 channels", PRESETS["M1"], (28, 33, 2)),
    ("M3 non-square", PRESETS["M3"], (17, 14, 1)),
    ("even patches, average + strided, poolfactor",
     Architecture((Layer(2, 2, "average", poolfactor=3), Layer(4, 1, "gaussian", poolfactor=2),
                   Layer(1, 2, "strided"))), (16, 13, 3)),
    ("exp kernel", Architecture((Layer(3, 2, "gaussian", "exp", 0.8), Layer(2, 2, "average", "exp", 1.3))),
     (12, 15, 1)),
    ("paper 1/|S| normalisation", Architecture(PRESETS["M3"].layers, "mean"), (15, 15, 2)),
    ("even patches 'same' offsets",
     Architecture((Layer(2, 2, "average", poolfactor=3), Layer(4, 1, "gaussian", poolfactor=2),
                   Layer(1, 2, "strided")), even_patch_offsets="same"), (16, 13, 3)),
    ("initial pooling A0", Architecture(PRESETS["M3"].layers, initial_pooling_sigma=1.3), (15, 14, 2)),
]


@pytest.mark.parametrize("name,arch,shape", REF_CASES, ids=[c[0] for c in REF_CASES])
def test_fast_matches_numpy_reference_on_signed_random_images(name, arch, shape):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape)
    y = rng.standard_normal(shape) + 0.3
    x[:2] = 0.0                       # zero rows: exercised by the sparse path
    y[:, -1] = 0.0
    nx, ny = image_norms(x, arch), image_norms(y, arch)
    kc, kn = cross_kernels(nx, ny, arch)
    rc, rn = reference_kernels(x, y, arch)
    assert kc == pytest.approx(rc, rel=1e-12)
    for n, img in ((nx, x), (ny, y)):
        sc, sn = reference_kernels(img, img, arch)
        assert n.k_ckn == pytest.approx(sc, rel=1e-12)
        if arch.supports_ntk:
            assert n.k_ntk == pytest.approx(sn, rel=1e-7)   # self-pair kappa0 noise
    if arch.supports_ntk:
        assert kn == pytest.approx(rn, rel=1e-12)
    else:
        assert math.isnan(kn) and math.isnan(rn)


def test_mean_normalisation_rescales_by_patch_sizes():
    rng = np.random.default_rng(3)
    x, y = rng.random((28, 28)), rng.random((28, 28))
    s = PRESETS["M2"]
    m = Architecture(s.layers, "mean")
    factor = np.prod([lay.npatch ** -2.0 for lay in s.layers])
    ks = cross_kernels(image_norms(x, s), image_norms(y, s), s)
    km = cross_kernels(image_norms(x, m), image_norms(y, m), m)
    assert km[0] == pytest.approx(ks[0] * factor, rel=1e-12)
    assert km[1] == pytest.approx(ks[1] * factor, rel=1e-12)
    ds = rel_distances(image_norms(x, s), image_norms(y, s), s)
    dm = rel_distances(image_norms(x, m), image_norms(y, m), m)
    assert dm[0] == pytest.approx(ds[0], rel=1e-9)
    assert dm[1] == pytest.approx(ds[1], rel=1e-6)   # NTK self-pair noise, amplified by d^2 cancellation


def test_patch_offsets_and_pooling_filters():
    assert sorted(patch_offsets(3)) == [-1, 0, 1]
    assert sorted(patch_offsets(2)) == [-1, 0]
    assert sorted(patch_offsets(5)) == [-2, -1, 0, 1, 2]
    assert sorted(patch_offsets(2, "same")) == [0, 1]  # neural-tangents 'SAME'
    assert sorted(patch_offsets(4)) == [-2, -1, 0, 1] and sorted(patch_offsets(4, "same")) == [-1, 0, 1, 2]
    assert patch_offsets(3, "same") == patch_offsets(3) and patch_offsets(5, "same") == patch_offsets(5)
    g = pooling_matrix(Layer(3, 2, "gaussian"), 28)
    assert g.shape == (13, 28)
    taps = np.exp(-np.arange(-2, 3) ** 2 / 4.0)
    assert g[0, :5] == pytest.approx(taps / taps.sum(), rel=1e-15)
    assert g[12, 24:] == pytest.approx((taps / taps.sum())[:4], rel=1e-15)   # truncated, not renormalised
    a = pooling_matrix(Layer(5, 2, "average"), 28)
    assert a.shape == (14, 28) and np.allclose(a.sum(axis=1), 1.0)
    st = pooling_matrix(Layer(3, 3, "strided"), 14)
    assert st.shape == (3, 14) and [int(np.argmax(r)) for r in st] == [3, 6, 9]


# --------------------------------------------------------------------------- edge cases
def test_all_zero_image_gives_zero_kernel_and_defined_distances():
    arch = PRESETS["M1"]
    zero = np.zeros((28, 28))
    x = load_digits()[0][5] / 255.0
    nz, nx = image_norms(zero, arch), image_norms(x, arch)
    assert (nz.k_ckn, nz.k_ntk) == (0.0, 0.0)
    assert cross_kernels(nz, nx, arch) == (0.0, 0.0)
    assert rel_distances(nz, nz, arch) == (0.0, 0.0)
    assert rel_distances(nx, nz, arch) == pytest.approx((1.0, 1.0), rel=1e-12)
    assert rel_distances(nz, nx, arch) == (math.inf, math.inf)
    K = gram_matrix(np.stack([zero, x, zero]), arch, "ntk")
    assert np.all(np.isfinite(K)) and K[0].tolist() == [0.0, 0.0, 0.0]


def test_opposite_images_clip_cosines_without_nan():
    arch = PRESETS["M3"]
    rng = np.random.default_rng(11)
    x = rng.standard_normal((28, 28)) * 1e3
    kc, kn = cross_kernels(image_norms(x, arch), image_norms(-x, arch), arch)
    rc, rn = reference_kernels(x, -x, arch)
    assert np.isfinite(kc) and np.isfinite(kn)
    assert kc == pytest.approx(rc, rel=1e-12, abs=1e-12 * image_norms(x, arch).k_ckn)
    assert kn == pytest.approx(rn, rel=1e-9, abs=1e-12 * image_norms(x, arch).k_ntk)


def test_exp_architecture_has_no_ntk():
    x = load_digits()[0][0] / 255.0
    n = image_norms(x, PRESETS["M4"])
    assert math.isnan(n.k_ntk) and math.isnan(cross_kernels(n, n, PRESETS["M4"])[1])
    with pytest.raises(ValueError, match="exp kernel has no NTK"):
        gram_matrix(x[None], PRESETS["M4"], "ntk")


def test_image_norms_cache_and_shape_checks():
    x = load_digits()[0][3] / 255.0
    n = image_norms(x, PRESETS["M1"])
    assert n is image_norms(x.copy()[..., None], PRESETS["M1"])
    assert cross_kernels(n, n, PRESETS["M1"]) == (n.k_ckn, n.k_ntk)   # same operations as the norm pass
    assert rel_distances(n, n, PRESETS["M1"]) == (0.0, 0.0)
    with pytest.raises(ValueError, match="same shape"):
        cross_kernels(image_norms(x, PRESETS["M3"]), image_norms(x[:27, :27], PRESETS["M3"]), PRESETS["M3"])
    with pytest.raises(ValueError, match="another architecture"):
        cross_kernels(image_norms(x, PRESETS["M1"]), image_norms(x, PRESETS["M2"]), PRESETS["M1"])
    with pytest.raises(ValueError, match="NaN or infinite"):
        image_norms(np.full((28, 28), np.nan), PRESETS["M1"])
    with pytest.raises(ValueError, match="too large for the exact kernel"):
        image_norms(np.zeros((200, 200)), PRESETS["M1"])


@pytest.mark.parametrize("make,match", [
    (lambda: Layer(3, 2, "max"), "pooling must be one of"),
    (lambda: Layer(3, 2, kernel="tanh"), "kernel must be one of"),
    (lambda: Layer(3, 0), "subsampling must be in"),
    (lambda: numbered_layer(2, 3, 0), "layer 2: subsampling must be in"),
    (lambda: architecture_from_dict([{"npatch": 3, "subsampling": 2}, {"npatch": 0, "subsampling": 2}]),
     "layer 2: npatch must be in"),
    (lambda: Architecture((Layer(3, 2),), "half"), "patch_normalization must be one of"),
    (lambda: Architecture(()), "at least one layer"),
    (lambda: Architecture((Layer(3, 2), "M1")), "layer 2 must be a Layer"),
])
def test_architecture_checks_itself_when_built(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("arch,shape,match", [
    (PRESETS["M1"], (12, 12), "layer 2 .*shrinks the 5x5 map to nothing"),
    (Architecture((Layer(7, 1),)), (5, 9), "layer 1 .*patch larger than its 5x9 input map"),
    (PRESETS["M1"], (0, 28), "image height must be in"),
])
def test_layer_size_messages(arch, shape, match):
    with pytest.raises(ValueError, match=match):
        arch.layer_sizes(*shape)


def test_architecture_from_dict_errors():
    with pytest.raises(ValueError, match="layer 1: missing required key 'subsampling'"):
        architecture_from_dict([{"npatch": 3}])
    with pytest.raises(ValueError, match="unknown key"):
        architecture_from_dict([{"npatch": 3, "subsampling": 2, "stride": 1}])
    with pytest.raises(ValueError, match="non-empty list"):
        architecture_from_dict([])
    arch = architecture_from_dict({"layers": [{"npatch": 3, "subsampling": 2, "kernel": "exp", "sigma": 0.5}],
                                   "patch_normalization": "mean"})
    assert arch.layers[0].sigma == 0.5 and arch.patch_normalization == "mean" and not arch.supports_ntk


# --------------------------------------------------------------------------- Gram iteration
def test_gram_iter_progress_cancel_and_cross_matrix(digits12):
    arch = PRESETS["M3"]
    items = list(gram_iter(digits12[:6], arch, "ntk", chunk_pairs=4))
    fr = [it.fraction for it in items]
    assert fr == sorted(fr) and fr[-1] == 1.0 and len(items) > 3
    assert all(it.matrix is None for it in items[:-1])
    K = items[-1].matrix
    it = gram_iter(digits12[:6], arch, "ntk", chunk_pairs=2)
    first = next(it)
    assert first.fraction < 1 and first.matrix is None
    it.close()                                                   # cancel between chunks
    C = gram_matrix(digits12[:2], arch, "ntk", images_b=digits12[2:6])
    assert C.shape == (2, 4)
    np.testing.assert_allclose(C, K[:2, 2:6], rtol=1e-13)
    with pytest.raises(ValueError, match="images_b must have the image shape"):
        gram_matrix(digits12[:2], arch, "ckn", images_b=digits12[:2, :20, :20])


def test_even_patch_offsets_convention():
    """'same' sums x(u + v) y(u' + v) over v in {0, 1}²: a one-layer, 2x2-patch, 1x1 average
    pooled CKN on images with one non-zero pixel each is a closed form."""
    from ntkviz.core.conv.architecture import architecture_from_dict, architecture_to_dict

    x = np.zeros((4, 4))
    x[1, 1] = 2.0
    for even, covering in (("reference", {(1, 1), (1, 2), (2, 1), (2, 2)}),
                           ("same", {(0, 0), (0, 1), (1, 0), (1, 1)})):
        arch = Architecture((Layer(2, 1, "average"),), even_patch_offsets=even)
        # the 2x2 patch at u holds x(u + v): non-zero exactly where u + v = (1, 1) for some v
        norms = image_norms(x, arch)
        # every covering position has the patch norm 2 and kappa1(1) = 1: K(x, x) = 4 * #positions
        assert norms.k_ckn == pytest.approx(4.0 * len(covering), rel=1e-15)
        y = np.zeros((4, 4))
        y[0, 0] = 1.0  # a pixel at the corner: 'reference' reaches it from u = (0,0),(0,1),(1,0),(1,1)
        ky = image_norms(y, arch).k_ckn
        assert ky == pytest.approx(4.0 if even == "reference" else 1.0, rel=1e-15)
        assert architecture_from_dict(architecture_to_dict(arch)) == arch
    with pytest.raises(ValueError, match="even_patch_offsets must be one of"):
        Architecture((Layer(2, 1),), even_patch_offsets="valid")
    with pytest.raises(ValueError, match="even_patch_offsets"):
        architecture_from_dict({"layers": [{"npatch": 2, "subsampling": 1}], "even_patch_offsets": 1})


def test_gram_of_huge_images_is_rescaled_not_overflowed():
    """Images scaled by 1e300 gave an all-NaN Gram matrix. The kernels are homogeneous
    of degree 2: K(c x, c y) = c² K(x, y), computed by rescaling; beyond the float64 range
    of K a one-line refusal naming the images."""
    from ntkviz.core.conv.gram import gram_matrix

    rng = np.random.default_rng(5)
    x = rng.random((3, 14, 14))
    arch = PRESETS["M3"]
    base = gram_matrix(x, arch, "ntk")
    c = 2.0 ** 100 * 3.0  # not a power of two
    big = gram_matrix(x * c, arch, "ntk")
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(big[off], (base * c * c)[off], rtol=1e-13)
    # self-pairs: x·c/2^101 = 1.5 x is rounded, and the NTK self-pair carries kappa0 rounding
    # noise at cosine 1 (~1e-9 relative)
    np.testing.assert_allclose(np.diag(big), np.diag(base) * c * c, rtol=1e-8)
    exp_arch = Architecture((Layer(3, 2, "gaussian", "exp", 0.65),))
    ckn = gram_matrix(x * 1e150, exp_arch, "ckn")
    np.testing.assert_allclose(ckn, gram_matrix(x, exp_arch, "ckn") * 1e300, rtol=1e-12)
    with pytest.raises(ValueError, match="images: pixel values up to .* beyond the float64 range"):
        gram_matrix(x * 1e300, arch, "ntk")


@pytest.mark.parametrize("arch", [
    Architecture((Layer(3, 2, "average"), Layer(2, 1, "average"))),
    Architecture((Layer(3, 2, "gaussian"), Layer(3, 1, "gaussian"))),
], ids=["average", "gaussian"])
def test_every_entry_matches_an_exact_computation(digits12, arch):
    """Every Gram entry, self-pairs included, within 1e-13 of the same recursion in
    50-digit mpmath (self-pairs used to be 1.6-4e-9 too small: kappa0 at 1 - ulp)."""
    from ntkviz.core.conv.gram import gram_matrix

    x = digits12[:3, 10:19, 9:18, 0]  # 9x9 crops through the strokes (8-bit values / 255)
    n = len(x)
    # both kernels of each pair in one exact evaluation; K(a, b) = K(b, a) exactly
    pairs = {(i, j): reference_kernels(x[i], x[j], arch, exact=True) for i in range(n) for j in range(i, n)}
    for mode in ("ntk", "ckn"):
        K = gram_matrix(x, arch, mode)
        m = _mode_index(mode)
        exact = np.array([[pairs[min(i, j), max(i, j)][m] for j in range(n)] for i in range(n)])
        assert _rel_err(K, exact).max() <= 1e-13, (mode, _rel_err(K, exact).max())


def test_a_dict_is_not_an_architecture():
    from ntkviz.core.conv.gram import gram_matrix

    with pytest.raises(ValueError, match="arch must be an Architecture .*architecture_from_dict"):
        gram_matrix(np.zeros((2, 12, 12)), {"layers": []}, "ntk")
    with pytest.raises(ValueError, match="arch must be an Architecture, got str"):
        image_norms(np.zeros((12, 12)), "M1")
