"""Spectra of finite Gram matrices (kernel PCA on data) and how the labels sit on them.

For a pool of N points ``x_1..x_N`` drawn from a distribution ρ and a kernel k, the Gram
matrix ``K_ij = k(x_i, x_j)`` has eigenpairs ``K v_i = λ_i v_i`` (``‖v_i‖ = 1``, λ
descending). ``λ_i / N`` are the eigenvalues of the integral operator of k for the
empirical measure of the pool (exactly) and estimates of those for ρ (kernel PCA:
Shawe-Taylor et al. 2005; Braun 2006), with eigenfunctions ``√N v_i`` on the pool.
``Σ_i λ_i / N = tr K / N``, the mean diagonal.

Numerical floor. float64 ``eigh`` is backward stable: every computed eigenvalue is within
about ``N ε ‖K‖₂`` of the exact one (ε = 2.2e-16), so an eigenvalue below
``N ε λ_max`` (in absolute value), and every negative one, carries no trusted digit; they
are flagged ``trustworthy = False``, never dropped.

Labels. Integer classes ``c_i`` give the **centred one-hot** targets
``Y_ic = 1[c_i = c] - p_c`` (``p_c`` the class frequency in the pool), so every column of Y
is orthogonal to the constant vector. Their energy on eigenvector i is
``e_i = ‖v_iᵀ Y‖² = Σ_c (v_iᵀ y_c)²`` and the **cumulative alignment**
``A(m) = Σ_{i<=m} e_i / ‖Y‖_F²`` is the share of the labels' energy on the top m
eigenvectors (``A(N) = 1``). The **kernel–target alignment** (Cristianini et al. 2002, with
centred targets) is ``⟨K, YYᵀ⟩_F / (‖K‖_F ‖YYᵀ‖_F) = tr(YᵀKY) / (‖K‖_F ‖YᵀY‖_F)``,
computed from the eigenpairs as ``Σ_i λ_i e_i / (√(Σ_i λ_i²) ‖YᵀY‖_F)``; it lies in [-1, 1].

Memory. The matrix is ``8 N²`` bytes; ``eigh`` (LAPACK ``dsyevd``) adds the eigenvectors
(``8 N²``, written over the matrix when ``overwrite=True``) and a workspace of about
``2 × 8 N²``: a peak of about ``3 × 8 N²`` bytes (overwrite) or ``4 × 8 N²`` (copy), 9.6 /
12.8 GB at the largest size allowed, ``MAX_GRAM_SIZE = 20000``; larger matrices are refused.
(:class:`ntkviz.jobs.DataTheoryRequest` keeps the matrix beside its decomposition: ``5 × 8 N²``.)

Reference on the sphere. :func:`sphere_reference` gives the sorted Mercer eigenvalues of a
dot-product kernel on ``S^{p-1}`` (each ``μ_k`` repeated ``N(p, k)`` times), the spectrum the
same kernel would have if the data were uniform on the sphere, and its decay exponent in the
index, ``λ_i ~ i^{-a/(p-1)}`` when ``μ_k ~ k^{-a}`` (``N(p, k) ~ k^{p-2}``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ntkviz import limits
from ntkviz._check import check_int
from ntkviz.core.spectra._series import EPS  # the core's one machine epsilon

__all__ = ["GramSpectrum", "gram_spectrum", "check_gram", "decompose", "numerical_floor", "centred_one_hot",
           "label_energy", "spectrum_from_eigenpairs", "SYMMETRY_TOLERANCE", "SphereReference", "sphere_reference", "MAX_GRAM_SIZE", "EPS"]

#: largest Gram matrix decomposed (peak memory about 3-5 x 8 N² bytes, see the module docstring)
MAX_GRAM_SIZE = 20_000
#: relative asymmetry ``max|K - Kᵀ| / max|K|`` a Gram matrix may have (rounding of its producer)
SYMMETRY_TOLERANCE = 1e-8


def check_gram(matrix, name: str = "gram") -> np.ndarray:
    """``matrix`` as a C-contiguous float64 array (no copy when it already is one), after
    checking that it is square of size ``2..MAX_GRAM_SIZE``, real, finite and symmetric to
    ``SYMMETRY_TOLERANCE`` (``max|K - Kᵀ| <= 1e-8 max|K|``); else ``ValueError`` starting
    with ``name``."""
    arr = np.asarray(matrix)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square (N, N) matrix, got shape {arr.shape}")
    if not 2 <= arr.shape[0] <= MAX_GRAM_SIZE:
        raise ValueError(f"{name} size N must be in [2, {MAX_GRAM_SIZE}], got {arr.shape[0]} (the "
                         "eigendecomposition needs about 3-4 x 8 N² bytes of memory)")
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} must be finite, got {bad} NaN or infinite value(s)")
    scale = float(np.max(np.abs(arr)))
    asym = float(np.max(np.abs(arr - arr.T))) if scale > 0 else 0.0
    if asym > SYMMETRY_TOLERANCE * scale:
        raise ValueError(f"{name} must be symmetric, got max |K - Kᵀ| = {asym:.3g} "
                         f"(allowed {SYMMETRY_TOLERANCE:g} x max |K| = {SYMMETRY_TOLERANCE * scale:.3g})")
    return arr


def centred_one_hot(labels) -> tuple[np.ndarray, np.ndarray]:
    """``(Y, classes)``: ``Y_ic = 1[labels_i = classes_c] - p_c`` with ``p_c`` the class
    frequency, ``classes`` the sorted distinct labels (at least two)."""
    lab = np.asarray(labels)
    if lab.ndim != 1 or not np.issubdtype(lab.dtype, np.integer):
        raise ValueError(f"labels must be a 1-D integer array, got shape {lab.shape}, dtype {lab.dtype}")
    classes = np.unique(lab)
    if classes.size < 2:
        raise ValueError(f"labels must hold at least 2 classes, got {classes.size}")
    onehot = (lab[:, None] == classes[None, :]).astype(np.float64)
    return onehot - onehot.mean(axis=0), classes


def decompose(matrix: np.ndarray, overwrite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(λ, V)`` of a symmetric float64 matrix, eigenvalues descending, eigenvectors in the
    columns (LAPACK ``dsyevd`` through SciPy; ``overwrite=True`` lets it write over
    ``matrix``, saving one ``8 N²`` copy). Both are reversed views of LAPACK's output (no copy)."""
    from scipy import linalg

    # a symmetric C array is its own transpose: passing .T (Fortran order) lets LAPACK work in place
    a = matrix.T if matrix.flags.c_contiguous else matrix
    w, v = linalg.eigh(a, overwrite_a=overwrite, check_finite=False, driver="evd")
    return w[::-1], v[:, ::-1]


def numerical_floor(eigenvalues: np.ndarray) -> float:
    """``N ε max|λ|``: eigenvalues below it (or negative) are not trusted."""
    n = eigenvalues.shape[0]
    return n * EPS * float(np.max(np.abs(eigenvalues))) if n else 0.0


def label_energy(eigenvectors: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``e_i = ‖v_iᵀ Y‖² = Σ_c (v_iᵀ y_c)²`` for every eigenvector (column) ``v_i``."""
    proj = eigenvectors.T @ targets
    return np.einsum("ic,ic->i", proj, proj)


@dataclass(frozen=True)
class GramSpectrum:
    """The spectrum of an ``N x N`` Gram matrix (see the module docstring).

    Attributes
    ----------
    eigenvalues : (N,) ``λ_i / N`` descending (operator eigenvalues of the pool's measure).
    trustworthy : (N,) bool, ``λ_i > N ε λ_max``.
    floor : the floor ``N ε λ_max`` divided by N (same units as ``eigenvalues``).
    trace : ``tr K`` (so ``Σ eigenvalues = trace / N``).
    frobenius : ``‖K‖_F``.
    energy : (N,) label energy ``e_i`` on each eigenvector, or None without labels.
    target_alignment : kernel–target alignment, or None without labels.
    """

    eigenvalues: np.ndarray
    trustworthy: np.ndarray
    floor: float
    trace: float
    frobenius: float
    energy: np.ndarray | None = None
    target_alignment: float | None = None

    @property
    def size(self) -> int:
        return int(self.eigenvalues.shape[0])

    @property
    def cumulative_alignment(self) -> np.ndarray | None:
        """``A(m)``, m = 1..N: the share of the labels' energy on the top m eigenvectors."""
        if self.energy is None:
            return None
        total = float(self.energy.sum())
        return np.cumsum(self.energy) / total if total > 0 else np.full(self.size, np.nan)


def spectrum_from_eigenpairs(eigenvalues: np.ndarray, eigenvectors: np.ndarray | None, trace: float,
                             targets: np.ndarray | None = None) -> GramSpectrum:
    """A :class:`GramSpectrum` from the raw eigenpairs ``(λ, V)`` of K (descending) and
    ``trace = tr K`` (summed from the matrix's diagonal, not from λ)."""
    n = eigenvalues.shape[0]
    floor = numerical_floor(eigenvalues)
    trust = eigenvalues > floor
    frob = float(np.sqrt(np.sum(eigenvalues ** 2)))
    energy = alignment = None
    if targets is not None:
        energy = label_energy(eigenvectors, targets)
        gram_y = targets.T @ targets
        denominator = frob * float(np.linalg.norm(gram_y))
        alignment = float(eigenvalues @ energy) / denominator if denominator > 0 else math.nan
        energy.setflags(write=False)
    values = eigenvalues / n
    for arr in (values, trust):
        arr.setflags(write=False)
    return GramSpectrum(values, trust, floor / n, float(trace), frob, energy, alignment)


def gram_spectrum(matrix, labels=None, overwrite: bool = False) -> GramSpectrum:
    """Spectrum, trust flags and label alignment of the Gram matrix ``matrix`` (N x N,
    symmetric, N <= ``MAX_GRAM_SIZE``) with optional integer ``labels`` (N,).

    ``overwrite=True`` lets the eigendecomposition write over ``matrix`` (a float64
    C-contiguous, writable array), saving ``8 N²`` bytes. Raises ``ValueError`` for a
    non-square, non-finite, asymmetric or too large matrix, or labels of the wrong length
    or of a single class.
    """
    arr = check_gram(matrix, "gram")
    targets = None
    if labels is not None:
        if np.shape(labels) != (arr.shape[0],):
            raise ValueError(f"labels must have one entry per Gram row ({arr.shape[0]}), "
                             f"got shape {np.shape(labels)}")
        targets = centred_one_hot(labels)[0]
    in_place = overwrite and arr is matrix and arr.flags.writeable
    trace = float(np.trace(arr))
    w, v = decompose(arr, overwrite=in_place)
    return spectrum_from_eigenpairs(w, v, trace, targets)


# ----------------------------------------------------------------------------- sphere reference
@dataclass(frozen=True)
class SphereReference:
    """The Mercer spectrum of a dot-product kernel on ``S^{dim-1}`` as a sorted list.

    ``eigenvalues[i]`` is the (i+1)-th largest operator eigenvalue (each μ_k repeated
    N(p, k) times) scaled so that all of them sum to ``trace`` (the data's ``tr K / N``);
    ``exponent`` the decay ``λ_i ~ i^{-exponent}`` (``a/(p-1)`` for ``μ_k ~ k^{-a}``;
    NaN when the spectrum decays faster than any power); ``label`` names the kernel."""

    eigenvalues: np.ndarray
    exponent: float
    dim: int
    label: str


def sphere_reference(spec, dim: int, count: int, trace: float = 1.0) -> SphereReference:
    """The ``count`` largest Mercer eigenvalues of ``spec`` (a :class:`KernelSpec`) on
    ``S^{dim-1}``, with multiplicity, summing (over all of them) to ``trace``.

    The uniform probability measure on the sphere makes ``Σ_k N(p, k) μ_k = κ(1)``, so the
    scale factor is ``trace / κ(1)``; exact zeros (parity) sort last as 0.
    """
    from ntkviz.core.kernels.dotkernel import KernelSpec, kernel_at_one
    from ntkviz.core.spectra.harmonics import multiplicity
    from ntkviz.core.spectra.mercer import decay_guides, mercer_spectrum

    if not isinstance(spec, KernelSpec):
        raise ValueError(f"spec must be a KernelSpec, got {type(spec).__name__}")  # valid by construction
    dim = check_int("dim", dim, limits.DIM_RANGE)
    count = check_int("count", count, (1, MAX_GRAM_SIZE))
    kmax, total = 0, 1.0
    while total < count and kmax < 2000:  # enough degrees to hold `count` eigenvalues
        kmax += 1
        total += float(multiplicity(dim, kmax))
    sp = mercer_spectrum(spec, dim, max(kmax, 1))
    mult = np.minimum(sp.multiplicity, count).astype(np.int64)
    order = np.argsort(-sp.mu, kind="stable")
    values = np.repeat(sp.mu[order], mult[order])[:count]
    scale = float(trace) / float(kernel_at_one(spec))
    guides = decay_guides(spec, dim)
    exponent = -guides[0][2] / (dim - 1) if guides else math.nan
    values = values * scale
    values.setflags(write=False)
    return SphereReference(values, float(exponent), dim, f"{spec.label} on S^{dim - 1}")
