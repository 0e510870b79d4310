"""Finite-width empirical NTK and NNGP of randomly initialised networks.

The network (Bietti & Mairal 2019 §2.1: NTK
parameterisation, every weight N(0, 1)), with L weight layers, width m, and
c = c_σ (2 for ReLU, the paper's √(2/m)):

    h¹ = W¹x + √β b¹,   h^{k+1} = √(c/m) W^{k+1} σ(h^k) + √β b^{k+1},
    f(x) = √(c/m) ⟨w, σ(h^{L−1})⟩ + √β b_out.

Its empirical NTK is Θ̂(x, x') = Σ_θ ∂f(x)/∂θ · ∂f(x')/∂θ over all weights and
biases, by explicit backpropagation g^k = ∂f/∂h^k:

    Θ̂ = (c/m)⟨σ(h^{L−1}), σ(h'^{L−1})⟩ + β
        + Σ_{k=1}^{L−2} ⟨g^{k+1}, g'^{k+1}⟩ ((c/m)⟨σ(h^k), σ(h'^k)⟩ + β)
        + ⟨g¹, g'¹⟩ (⟨x, x'⟩ + β),

and its empirical NNGP is the last-layer term (c/m)⟨σ(h^{L−1}), σ(h'^{L−1})⟩ + β
(the kernel of training the output layer only). As m → ∞ they tend to the
closed forms of :mod:`ntkviz.core.kernels.deep` with fluctuations of order 1/√m; this
module never calls them. Inputs: x = e1 and x' = u e1 + √(1−u²) e2 on the unit
sphere of R^dim. By rotation invariance of Gaussian weights only two input
coordinates matter, so ``dim`` does not change the distribution (nor the
numbers drawn for a seed).

Couplings (how the cosines of one sample share randomness). Each returns, at
every cosine, a value with exactly the law of a width-m network's kernel there:

* ``pairwise`` (default, O(L N m), numba): the network seen by the pair
  (x, x'_j) is sampled in the 2-D span of its two inputs per layer (below);
  the same random numbers serve every j (common random numbers), so a sample
  is a smooth curve — but across cosines it is not one network's kernel;
* ``independent``: as ``pairwise`` with fresh random numbers per cosine
  (independent values, jagged curves);
* ``shared``: one network for all N cosines (exact joint law, a real
  network's kernel curve), O(L N² m) with dense linear algebra (NumPy/BLAS):
  fine for N·m up to ~10⁵, slow beyond.

Conditional sampling. A hidden layer's m×m matrix W is never drawn: with Q an
orthonormal basis (QR / Gram–Schmidt) of the span of the layer's inputs,
W = (WQ)Qᵀ + W(I − QQᵀ) where WQ is an m×r Gaussian matrix and the second
part is independent of it and enters only the backward pass, through
G·W(I − QQᵀ), whose rows are Gaussian with covariance GGᵀ (sampled as R_Gᵀ Ξ,
R_G from a QR or Cholesky factor of Gᵀ). This is exact in distribution;
``ntkviz.core.kernels._reference.empirical_reference`` draws every W explicitly instead.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ntkviz import limits as _limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz.core.kernels.activations import ACTIVATIONS, activation_functions
from ntkviz.core.kernels.arccos import flat_cosines

__all__ = ["EmpiricalKernels", "empirical_kernels", "COUPLINGS"]

COUPLINGS = ("pairwise", "independent", "shared")
_JIT = dict(nogil=True, cache=True, error_model="numpy")
_SQRT2 = math.sqrt(2.0)
_INV_SQRT2PI = 1.0 / math.sqrt(2.0 * math.pi)


@dataclass(frozen=True)
class EmpiricalKernels:
    """Empirical kernels of ``n_samples`` independent networks at cosines ``u``.

    ``ntk`` and ``nngp`` have shape (n_samples, len(u)); sample i is the same
    for a given seed whatever ``n_samples`` is.
    """

    u: np.ndarray
    ntk: np.ndarray
    nngp: np.ndarray
    width: int
    depth: int
    seed: int
    activation: str = "relu"
    bias: float = 0.0
    coupling: str = "pairwise"

    @property
    def n_samples(self) -> int:
        return self.ntk.shape[0]


@njit(**_JIT)
def _activation(kind, z):
    """σ(z), σ'(z) for ACTIVATIONS[kind] (relu, step, tanh, erf, gelu, softplus, sigmoid)."""
    if kind == 0:
        return (z, 1.0) if z > 0.0 else (0.0, 0.0)
    if kind == 1:
        return (1.0 if z >= 0.0 else 0.0), 0.0
    if kind == 2:
        t = math.tanh(z)
        return t, 1.0 - t * t
    if kind == 3:
        return math.erf(z), 2.0 * _INV_SQRT2PI * _SQRT2 * math.exp(-z * z)
    if kind == 4:
        cdf = 0.5 * math.erfc(-z / _SQRT2)
        return z * cdf, cdf + z * _INV_SQRT2PI * math.exp(-0.5 * z * z)
    if z >= 0.0:
        e = math.exp(-z)
        sig = 1.0 / (1.0 + e)
        soft = z + math.log1p(e)
    else:
        e = math.exp(z)
        sig = e / (1.0 + e)
        soft = math.log1p(e)
    if kind == 5:
        return soft, sig
    return sig, sig * (1.0 - sig)


@njit(**_JIT)
def _project_out(vec, e0, e1):
    """vec − ⟨vec, e0⟩e0 − ⟨vec, e1⟩e1 in place (e0, e1 orthonormal or zero)."""
    c0 = 0.0
    c1 = 0.0
    for i in range(vec.shape[0]):
        c0 += vec[i] * e0[i]
        c1 += vec[i] * e1[i]
    for i in range(vec.shape[0]):
        vec[i] -= c0 * e0[i] + c1 * e1[i]


@njit(**_JIT)
def _draw(draws, bias):
    """Fill the standard normals of one network seen by a pair (rows of ``draws``, see below)."""
    for r in range(draws.shape[0]):
        slot = r % 7
        used = slot <= 1 or r == 5 or (slot == 2 and bias > 0.0) or (r >= 7 and 3 <= slot <= 4)
        if not used:
            continue
        for i in range(draws.shape[1]):
            draws[r, i] = np.random.standard_normal()


@njit(**_JIT)
def pairwise_kernels(u, width, depth, c, bias, kind, seeds, common, ntk_out, nngp_out):
    """Empirical NTK and NNGP of the pair (e1, x'_j) for each cosine u[j].

    The random numbers come from ``seeds[0]`` once (``common``: the same draws for
    every j) or from ``seeds[j]`` per cosine. Per hidden layer the pair's activations
    a0, aj span Q = (e0, e1) (Gram–Schmidt), the layer's pre-activations are
    √(c/m) (WQ)R with WQ ~ N(0,1)^{m×2}, and the backward pass adds the part of W
    orthogonal to Q as a Gaussian with the pair's gradient covariance (Cholesky),
    projected off Q.
    """
    m = width
    scale = math.sqrt(c / m)
    s2 = scale * scale
    root_b = math.sqrt(bias)
    nh = depth - 1
    # 7 rows per hidden layer k: W¹ (k = 0) or WQ (k >= 1) columns 0 and 1, bias b^{k+1},
    # Ξ rows 0 and 1 (k >= 1, backward noise of weight layer k+1), w_out (k = 0), spare
    draws = np.zeros((7 * nh, m))
    act0 = np.empty((nh, m))
    actj = np.empty((nh, m))
    der0 = np.empty((nh, m))
    derj = np.empty((nh, m))
    e0 = np.zeros((nh, m))
    e1 = np.zeros((nh, m))
    g0 = np.empty(m)
    gj = np.empty(m)
    b0 = np.empty(m)
    bj = np.empty(m)
    for j in range(u.shape[0]):
        if j == 0 or not common:
            np.random.seed(seeds[j])
            _draw(draws, bias)
        x = u[j]
        sin = math.sqrt((1.0 - x) * (1.0 + x))
        for i in range(m):
            w0 = draws[0, i]
            bb = root_b * draws[2, i]
            act0[0, i], der0[0, i] = _activation(kind, w0 + bb)
            actj[0, i], derj[0, i] = _activation(kind, x * w0 + sin * draws[1, i] + bb)
        for k in range(nh - 1):  # weight layer k+2: σ(h[k]) -> h[k+1]
            n0sq = 0.0
            dot = 0.0
            for i in range(m):
                n0sq += act0[k, i] * act0[k, i]
                dot += act0[k, i] * actj[k, i]
            n0 = math.sqrt(n0sq)
            r01 = dot / n0 if n0 > 0.0 else 0.0
            n1sq = 0.0
            for i in range(m):
                e0[k, i] = act0[k, i] / n0 if n0 > 0.0 else 0.0
                e1[k, i] = actj[k, i] - r01 * e0[k, i]
                n1sq += e1[k, i] * e1[k, i]
            n1 = math.sqrt(n1sq)
            inv_n1 = 1.0 / n1 if n1 > 0.0 else 0.0
            row = 7 * (k + 1)
            for i in range(m):
                e1[k, i] *= inv_n1
                v0 = draws[row, i]
                bb = root_b * draws[row + 2, i]
                act0[k + 1, i], der0[k + 1, i] = _activation(kind, scale * n0 * v0 + bb)
                actj[k + 1, i], derj[k + 1, i] = _activation(
                    kind, scale * (r01 * v0 + n1 * draws[row + 1, i]) + bb)
        last = 0.0
        for i in range(m):
            last += act0[nh - 1, i] * actj[nh - 1, i]
            w = draws[5, i]
            g0[i] = scale * w * der0[nh - 1, i]
            gj[i] = scale * w * derj[nh - 1, i]
        last = s2 * last + bias
        nngp_out[j] = last
        ntk = last
        for k in range(nh - 2, -1, -1):  # back through weight layer k+2
            row = 7 * (k + 1)
            gg = 0.0
            aa = 0.0
            c00 = 0.0
            c01 = 0.0
            c10 = 0.0
            c11 = 0.0
            g00 = 0.0
            gjj = 0.0
            for i in range(m):
                gg += g0[i] * gj[i]
                g00 += g0[i] * g0[i]
                gjj += gj[i] * gj[i]
                aa += act0[k, i] * actj[k, i]
                c00 += g0[i] * draws[row, i]
                c01 += g0[i] * draws[row + 1, i]
                c10 += gj[i] * draws[row, i]
                c11 += gj[i] * draws[row + 1, i]
            ntk += gg * (s2 * aa + bias)
            l00 = math.sqrt(g00)
            l10 = gg / l00 if l00 > 0.0 else 0.0
            l11 = math.sqrt(max(gjj - l10 * l10, 0.0))
            for i in range(m):
                xi0 = draws[row + 3, i]
                b0[i] = l00 * xi0
                bj[i] = l10 * xi0 + l11 * draws[row + 4, i]
            _project_out(b0, e0[k], e1[k])
            _project_out(bj, e0[k], e1[k])
            for i in range(m):
                g0[i] = scale * (b0[i] + c00 * e0[k, i] + c01 * e1[k, i]) * der0[k, i]
                gj[i] = scale * (bj[i] + c10 * e0[k, i] + c11 * e1[k, i]) * derj[k, i]
        gg = 0.0
        for i in range(m):
            gg += g0[i] * gj[i]
        ntk_out[j] = ntk + gg * (x + bias)


def shared_network_kernels(u: np.ndarray, width: int, depth: int, c: float, bias: float,
                           sigma, dsigma, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Empirical (NTK, NNGP) of one network between x = e1 and every x'_j (``coupling="shared"``).

    Rows of the (N+1, ·) arrays are the inputs: e1, then x'_j = u_j e1 + √(1−u_j²) e2
    (first two coordinates only).
    """
    x = np.vstack([[1.0, 0.0], np.column_stack([u, np.sqrt((1.0 - u) * (1.0 + u))])])
    scale = math.sqrt(c / width)
    root_b = math.sqrt(bias)

    def bias_row():
        return root_b * rng.standard_normal(width) if bias else 0.0

    def dot_first(a):  # ⟨a[n], a[0]⟩ for every row n
        return a @ a[0]

    pre = [x @ rng.standard_normal((2, width)) + bias_row()]  # h¹ = W¹x + √β b¹
    bases = []  # (Q, WQ) of each hidden m×m layer
    for _ in range(depth - 2):
        q, r = np.linalg.qr(sigma(pre[-1]).T)  # σ(h)ᵀ = QR, Q: (m, r)
        v = rng.standard_normal((width, q.shape[1]))  # WQ
        bases.append((q, v))
        pre.append(scale * (v @ r).T + bias_row())
    acts = [sigma(h) for h in pre]
    last = scale * scale * dot_first(acts[-1]) + bias
    grad = scale * rng.standard_normal(width) * dsigma(pre[-1])  # g^{L−1}, one row per input
    ntk = last.copy()
    for k in range(depth - 2, 0, -1):  # weight layer k+1 maps σ(h^k) to h^{k+1}
        ntk += dot_first(grad) * (scale * scale * dot_first(acts[k - 1]) + bias)
        q, v = bases[k - 1]
        back = (grad @ v) @ q.T
        if q.shape[1] < q.shape[0]:  # the part of W orthogonal to the inputs' span
            _, rg = np.linalg.qr(grad.T)
            noise = rg.T @ rng.standard_normal((rg.shape[0], width))
            back += noise - (noise @ q) @ q.T
        grad = scale * back * dsigma(pre[k - 1])
    ntk += dot_first(grad) * (x @ x[0] + bias)
    return ntk[1:], last[1:]


def empirical_kernels(u, width: int, depth: int = 2, seed: int = 0, n_samples: int = 1,
                      dim: int = 2, activation: str = "relu", bias: float = 0.0,
                      coupling: str = "pairwise", *, check_input: bool = True) -> EmpiricalKernels:
    """Empirical NTK and NNGP of ``n_samples`` random networks of width ``width``.

    Parameters
    ----------
    u : array_like
        Cosines in [-1, 1] (1-D after flattening).
    width : int
        m, the width of every hidden layer, 1..65536.
    depth : int
        L, the number of weight layers, 2..50.
    seed : int
        Seed in [0, 2^32 − 1]; sample i uses the i-th child of ``SeedSequence(seed)``.
    n_samples : int
        Number of independent networks, 1..1000.
    dim : int
        Input dimension p in [2, 1000] (does not change the distribution, see module doc).
    activation : str
        One of :data:`ntkviz.core.kernels.activations.ACTIVATIONS`, with its c_σ. For
        ``step`` σ' = 0 almost everywhere, so only the last-layer term survives.
    bias : float
        Bias variance β >= 0 (biases √β·N(0, 1) in every layer).
    coupling : str
        ``pairwise`` (default; fast, smooth curves, exact law at each cosine),
        ``independent`` (fresh randomness per cosine) or ``shared`` (one real
        network for all cosines, O(L N² m)); see the module docstring.
    check_input : bool
        ``False`` skips every argument check, for a caller that checked them against the
        same ranges (``ntkviz.limits``) once already and passes 1-D float64 cosines in [-1, 1].
    """
    if check_input:
        u, _ = flat_cosines(u)
        width = check_int("width", width, _limits.NET_WIDTH_RANGE)
        depth = check_int("depth", depth, _limits.DEPTH_RANGE)
        seed = check_int("seed", seed, _limits.SEED_RANGE)
        n_samples = check_int("n_samples", n_samples, _limits.EMPIRICAL_SAMPLES_RANGE)
        check_int("dim", dim, _limits.DIM_RANGE)
        check_choice("activation", activation, ACTIVATIONS)
        bias = check_float("bias", bias, _limits.BIAS_RANGE)
        check_choice("coupling", coupling, COUPLINGS)
    flat = np.array(np.ravel(u), dtype=np.float64)  # a copy: it is frozen in the result
    sigma, dsigma, c = activation_functions(activation)
    children = np.random.SeedSequence(seed).spawn(n_samples)
    ntk = np.empty((n_samples, flat.size))
    nngp = np.empty((n_samples, flat.size))
    for i, child in enumerate(children):
        if coupling == "shared":
            ntk[i], nngp[i] = shared_network_kernels(flat, width, depth, c, bias, sigma, dsigma,
                                                     np.random.default_rng(child))
        else:
            common = coupling == "pairwise"
            seeds = child.generate_state(1 if common else flat.size).astype(np.int64)
            pairwise_kernels(flat, width, depth, c, bias, ACTIVATIONS.index(activation),
                             seeds, common, ntk[i], nngp[i])
    for arr in (flat, ntk, nngp):
        arr.setflags(write=False)
    return EmpiricalKernels(flat, ntk, nngp, width, depth, seed, activation, bias, coupling)
