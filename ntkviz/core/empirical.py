"""Finite-width empirical NTK and NNGP of randomly initialised networks.

The network (Bietti & Mairal 2019 §2.1, ``docs/spec.md`` §1.2: NTK
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
closed forms of :mod:`ntkviz.core.deep` with fluctuations of order 1/√m; this
module never calls them. Inputs: x = e1 and x' = u e1 + √(1−u²) e2 on the unit
sphere of R^dim. By rotation invariance of Gaussian weights only two input
coordinates matter, so ``dim`` does not change the distribution (nor the
numbers drawn for a seed).

Speed. By default all cosines share one network per sample (smooth curves;
``coupling="independent"`` draws one network per cosine instead). A hidden
layer's m×m matrix W is never drawn: with N inputs and Q an orthonormal basis
(QR) of the span of the layer's inputs, W = (WQ)Qᵀ + W(I − QQᵀ) where WQ is an
m×N Gaussian matrix and the second part is independent of it and enters the
backward pass only through G·W(I − QQᵀ), whose rows are Gaussian with
covariance GGᵀ — sampled as R_Gᵀ Ξ (QR of Gᵀ) with an N×m Gaussian Ξ. This is
exact in distribution and costs O(N² m) per layer instead of O(N m²).
``_reference_kernels.empirical_reference`` draws every W explicitly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ntkviz.core._validate import check_choice, check_float, check_int
from ntkviz.core.activations import ACTIVATIONS, activation_functions
from ntkviz.core.arccos import flat_cosines

__all__ = ["EmpiricalKernels", "empirical_kernels", "MAX_WIDTH"]

MAX_WIDTH = 65536
COUPLINGS = ("shared", "independent")


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
    coupling: str = "shared"

    @property
    def n_samples(self) -> int:
        return self.ntk.shape[0]


def sphere_inputs(u: np.ndarray, coupling: str = "shared") -> np.ndarray:
    """Input batches (B, N, 2): first two coordinates of x = e1 (row 0) and of x'_j.

    ``shared``: one batch, rows e1 then x'_j = u_j e1 + √(1−u_j²) e2 for all j.
    ``independent``: one batch per cosine, rows e1 and x'_j.
    """
    sin = np.sqrt((1.0 - u) * (1.0 + u))
    others = np.column_stack([u, sin])
    if coupling == "shared":
        return np.vstack([[1.0, 0.0], others])[None]
    first = np.broadcast_to([1.0, 0.0], others.shape)
    return np.stack([first, others], axis=1)


def _rows_dot_first(a: np.ndarray) -> np.ndarray:
    """⟨a[b, n], a[b, 0]⟩ for every batch b and row n."""
    return np.einsum("bnm,bm->bn", a, a[:, 0])


def _one_network(x: np.ndarray, width: int, depth: int, c: float, bias: float,
                 sigma, dsigma, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Empirical (NTK, NNGP) between row 0 and every row of each batch of ``x`` (B, N, 2).

    Every batch is an independent network (one network when B = 1).
    """
    nb, n_in = x.shape[0], x.shape[1]
    scale = math.sqrt(c / width)
    root_b = math.sqrt(bias)

    def bias_rows():
        return root_b * rng.standard_normal((nb, 1, width)) if bias else 0.0

    pre = [x @ rng.standard_normal((nb, 2, width)) + bias_rows()]  # h¹ = W¹x + √β b¹
    bases = []  # (Q, V) of each hidden m×m layer
    for _ in range(depth - 2):
        q, r = np.linalg.qr(np.swapaxes(sigma(pre[-1]), 1, 2))  # σ(h)ᵀ = QR, Q: (B, m, r)
        v = rng.standard_normal((nb, width, q.shape[2]))  # WQ
        bases.append((q, v))
        pre.append(scale * np.swapaxes(v @ r, 1, 2) + bias_rows())
    acts = [sigma(h) for h in pre]
    last = scale * scale * _rows_dot_first(acts[-1]) + bias
    w = rng.standard_normal((nb, 1, width))
    grad = scale * w * dsigma(pre[-1])  # g^{L−1}, one row per input
    ntk = last.copy()
    for k in range(depth - 2, 0, -1):  # weight layer k+1 maps σ(h^k) to h^{k+1}
        ntk += _rows_dot_first(grad) * (scale * scale * _rows_dot_first(acts[k - 1]) + bias)
        q, v = bases[k - 1]
        qt = np.swapaxes(q, 1, 2)
        back = (grad @ v) @ qt
        if q.shape[2] < q.shape[1]:  # the part of W orthogonal to the inputs' span
            _, rg = np.linalg.qr(np.swapaxes(grad, 1, 2))
            noise = np.swapaxes(rg, 1, 2) @ rng.standard_normal((nb, rg.shape[1], width))
            back += noise - (noise @ q) @ qt
        grad = scale * back * dsigma(pre[k - 1])
    ntk += _rows_dot_first(grad) * (np.einsum("bnk,bk->bn", x, x[:, 0]) + bias)
    return ntk[:, 1:].reshape(-1), last[:, 1:].reshape(-1)


def empirical_kernels(u, width: int, depth: int = 2, seed: int = 0, n_samples: int = 1,
                      dim: int = 2, activation: str = "relu", bias: float = 0.0,
                      coupling: str = "shared") -> EmpiricalKernels:
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
        Seed (>= 0); sample i uses the i-th child of ``SeedSequence(seed)``.
    n_samples : int
        Number of independent networks, 1..1000.
    dim : int
        Input dimension p >= 2 (does not change the distribution, see module doc).
    activation : str
        One of :data:`ntkviz.core.activations.ACTIVATIONS`, with its c_σ. For
        ``step`` σ' = 0 almost everywhere, so only the last-layer term survives.
    bias : float
        Bias variance β >= 0 (biases √β·N(0, 1) in every layer).
    coupling : str
        ``shared``: one network per sample for all cosines (a smooth curve per
        sample; cost O(L N² m) for N cosines); ``independent``: a fresh network
        for every cosine (same marginal law at each u, jagged curves; cost
        O(L N m), for many cosines at large width).
    """
    flat, _ = flat_cosines(u)
    width = check_int("width", width, 1, MAX_WIDTH)
    depth = check_int("depth", depth, 2, 50)
    seed = check_int("seed", seed, 0)
    n_samples = check_int("n_samples", n_samples, 1, 1000)
    check_int("dim", dim, 2)
    check_choice("activation", activation, ACTIVATIONS)
    bias = check_float("bias", bias, 0.0, 100.0)
    check_choice("coupling", coupling, COUPLINGS)
    sigma, dsigma, c = activation_functions(activation)
    x = sphere_inputs(flat, coupling)
    children = np.random.SeedSequence(seed).spawn(n_samples)
    ntk = np.empty((n_samples, flat.size))
    nngp = np.empty((n_samples, flat.size))
    for i, child in enumerate(children):
        ntk[i], nngp[i] = _one_network(x, width, depth, c, bias, sigma, dsigma,
                                       np.random.default_rng(child))
    for arr in (flat, ntk, nngp):
        arr.setflags(write=False)
    return EmpiricalKernels(flat, ntk, nngp, width, depth, seed, activation, bias, coupling)
