"""Spectra of real Gram matrices and the theory of kernel regression on a data pool (Qt-free).

``GramSpectrumRequest``: the eigenvalues ``λ_i / N`` of a Gram matrix (an ``ntkviz gram``
Zarr store, a ``.npy`` file or an array), their trust flags, the labels' cumulative
alignment and the kernel–target alignment (:mod:`ntkviz.core.learning.gram_spectrum`),
plus, for a store of a ReLU architecture, the Mercer spectrum of the same kernel family on
a sphere for reference (:func:`reference_kernel`).

``DataTheoryRequest``: the Gram matrix of a pool of N labelled points, normalised to mean
diagonal 1 (``K̃ = K / (tr K / N)``: the ridge is relative to the kernel's scale and kernels
compare), and for each training size n < N

* the eigenlearning prediction of the held-out test MSE from the pool's spectrum
  ``λ_i(K̃)/N`` (untrusted eigenvalues taken as 0) and the labels' powers
  ``(v_iᵀ Y)²/N`` (:func:`ntkviz.core.learning.finite_learning_theory`);
* the measured test MSE and accuracy of KRR ``K̃_RS (K̃_SS + δ I)⁻¹ Y_S`` on ``draws``
  random subsets S of size n, tested on the rest R of the pool (mean ± standard error);
* the certificate ``√(2 YᵀH⁻¹Y / n)`` of Arora et al. (2019) and ``λ_min(H)`` with
  ``H = (K̃_SS + δ I)/2`` (mean diagonal ½, their scale), the pseudo-inverse where H is
  numerically singular (:func:`ntkviz.core.learning.subset_fit`);

for the true labels and, with ``random_labels``, for a seeded permutation of them (the same
subsets). Targets: centred one-hot ``Y_ic = 1[c_i = c] - p_c``; ``YᵀH⁻¹Y`` is summed over the
class columns. Both requests offer ``iterate()`` (``Progress`` items, then the response as the
generator's return value); calling them runs it to the end.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Generator

import numpy as np

from ntkviz import limits
from ntkviz._check import check_float, check_int
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["GramSpectrumRequest", "GramSpectrumResponse", "DataTheoryRequest", "DataTheoryResponse",
           "SPECTRUM_CSV_COLUMNS", "DATA_THEORY_CSV_COLUMNS", "LABEL_KINDS", "reference_kernel"]

#: the columns of ``ntkviz gram-spectrum``
SPECTRUM_CSV_COLUMNS = ("index", "eigenvalue", "trustworthy", "cumulative_alignment")
#: the columns of ``ntkviz data-theory`` (the first eight, then details)
DATA_THEORY_CSV_COLUMNS = ("n", "labels", "certificate", "lambda_min", "predicted_test_mse",
                           "measured_test_mse", "measured_test_mse_sem", "measured_accuracy",
                           "certificate_sem", "measured_accuracy_sem", "predicted_pool_mse",
                           "effective_ridge", "inverse", "pinv_draws")
#: the label sets: the true labels and a seeded permutation of them
LABEL_KINDS = ("true", "random")
#: points of the predicted learning curve drawn as a line (log-spaced n in [1, N - 1])
CURVE_POINTS = 200


# ----------------------------------------------------------------------------- inputs
def _gram_source(value, name: str = "gram"):
    """A path to a ``.zarr``/``.npy`` that exists (read later), or a checked read-only array."""
    from ntkviz.core.learning.gram_spectrum import check_gram

    if isinstance(value, (str, Path)):
        path = Path(value)
        if path.suffix.lower() not in (".zarr", ".npy"):
            raise ValueError(f"{name} must be a .zarr store (ntkviz gram) or a .npy file, got {path.name!r}")
        if not path.exists():
            raise ValueError(f"{name} {path}: no such file or store")
        return path
    arr = check_gram(value, name)
    if arr.flags.writeable:
        arr = arr.copy()
        arr.setflags(write=False)
    return arr


def _label_source(value, n: int | None):
    """A path (read later) or checked read-only integer labels (length ``n`` when known)."""
    if value is None or isinstance(value, (str, Path)):
        if value is not None and not Path(value).exists():
            raise ValueError(f"labels {value}: no such file")
        return None if value is None else Path(value)
    return _checked_labels(value, n)


def _checked_labels(value, n: int | None) -> np.ndarray:
    from ntkviz.core.learning.gram_spectrum import centred_one_hot

    lab = np.asarray(value)
    if lab.ndim != 1 or not np.issubdtype(lab.dtype, np.integer):
        raise ValueError(f"labels must be a 1-D integer array, got shape {lab.shape}, dtype {lab.dtype}")
    if n is not None and lab.shape[0] != n:
        raise ValueError(f"labels must have one entry per Gram row ({n}), got {lab.shape[0]}")
    centred_one_hot(lab)  # at least two classes
    out = lab.astype(np.int64)
    out.setflags(write=False)
    return out


def _read(gram, labels, stage: str, end: float):
    """Generator: read ``gram`` (yielding progress up to ``end``) and ``labels``; returns
    ``(matrix, labels or None, meta, source, owned)`` (``owned``: the matrix was read here)."""
    from ntkviz.core.learning.gram_spectrum import MAX_GRAM_SIZE
    from ntkviz.dataset._matrix_file import read_gram_blocks, read_labels

    if isinstance(gram, Path):
        items = read_gram_blocks(gram, MAX_GRAM_SIZE)
        while True:
            try:
                fraction = next(items)
            except StopIteration as stop:
                result = stop.value
                break
            yield Progress(end * fraction, stage)
        matrix, meta, source, owned = result.matrix, result.meta, result.source, True
    else:
        matrix, meta, source, owned = gram, {}, "array", False
    n = matrix.shape[0]
    if isinstance(labels, Path):
        labels = _checked_labels(read_labels(labels, n), n)
    elif labels is not None:
        labels = _checked_labels(labels, n)
    return matrix, labels, meta, source, owned


# ----------------------------------------------------------------------------- reference kernel
def reference_kernel(meta: dict):
    """``(KernelSpec, dim)`` of the dot-product kernel of the same family as the conv kernel of
    an ``ntkviz gram`` store (its ``ntkviz`` attribute), or None.

    There is no exact sphere analogue of a convolutional kernel; the reference is the deep
    fully-connected ReLU kernel of the same depth and training mode — the NTK for ``ntk``,
    the NNGP (last layer trained, like the CKN) for ``ckn``, with L = layers + 1 weight
    layers — on the sphere of the first layer's patches, ``p = s² C`` (s the patch side, C the
    channels): kernels on local patches have eigenvalue decay set by the patch dimension
    rather than the image dimension (Misiakiewicz & Mei 2021; Bietti 2022). Architectures
    with an ``exp`` patch kernel have no ReLU analogue: None.
    """
    from ntkviz.core.conv.architecture import architecture_from_dict
    from ntkviz.core.kernels.dotkernel import KernelSpec

    try:
        arch = architecture_from_dict(meta["architecture"])
        mode = meta["mode"]
        shape = tuple(meta["input_shape"])
    except (KeyError, TypeError, ValueError):
        return None
    if mode not in ("ckn", "ntk") or any(layer.kernel != "relu" for layer in arch.layers):
        return None
    channels = shape[3] if len(shape) == 4 else 1
    dim = min(arch.layers[0].npatch ** 2 * channels, 1000)
    depth = min(len(arch.layers) + 1, 50)
    return KernelSpec("ntk" if mode == "ntk" else "nngp", depth), max(dim, 2)


def _reference(meta: dict, count: int, trace: float):
    """The :class:`~ntkviz.core.learning.SphereReference` of a store's kernel family (``count``
    eigenvalues, all of them summing to ``trace``), or None."""
    from ntkviz.core.learning.gram_spectrum import sphere_reference

    ref = reference_kernel(meta)
    return None if ref is None else sphere_reference(ref[0], ref[1], count, trace)


# ----------------------------------------------------------------------------- gram spectrum
@dataclass(frozen=True)
class GramSpectrumResponse:
    """The :class:`~ntkviz.core.learning.GramSpectrum` of one Gram matrix, where it came from,
    and the sphere reference (:class:`~ntkviz.core.learning.SphereReference` or None)."""

    name: str
    source: str
    spectrum: object
    reference: object = None
    meta: dict = field(default_factory=dict)

    @property
    def fraction(self) -> float:
        return 1.0

    def csv_table(self) -> tuple[list[str], list[list]]:
        """``index,eigenvalue,trustworthy,cumulative_alignment``: index m = 1..N, ``λ_m / N``
        (descending), whether it is above the floor, the labels' share on the top m
        eigenvectors (blank without labels)."""
        sp = self.spectrum
        align = sp.cumulative_alignment
        rows = [[i + 1, float(sp.eigenvalues[i]), bool(sp.trustworthy[i]),
                 "" if align is None else float(align[i])] for i in range(sp.size)]
        return list(SPECTRUM_CSV_COLUMNS), rows

    def summary(self) -> str:
        """One line: N, the trace identity, trusted eigenvalues, kernel–target alignment."""
        sp = self.spectrum
        trusted = int(np.count_nonzero(sp.trustworthy))
        kta = ("kernel-target alignment " + f"{sp.target_alignment:.4f}" if sp.target_alignment is not None
               else "kernel-target alignment: no labels given")
        return (f"N = {sp.size}, tr K / N = {sp.trace / sp.size:.6g}, largest eigenvalue/N "
                f"{sp.eigenvalues[0]:.6g}, {trusted} of {sp.size} above the floor N·eps·lambda_max "
                f"(= {sp.floor:.3g} after /N); {kta}")


@dataclass(frozen=True, eq=False)
class GramSpectrumRequest:
    """Spectrum of one Gram matrix (module docstring).

    Parameters
    ----------
    gram : str, Path or array
        An ``ntkviz gram`` Zarr store, a ``.npy`` file (read when run) or an (N, N) array.
    labels : str, Path, array or None
        Integer class labels (N,): an array or a file read by
        :func:`ntkviz.dataset._matrix_file.read_labels` (``.npy``, the ``.npz`` images file with
        its ``labels``, an MNIST labels file).
    name : str
        What the view calls this kernel (``"ckn"``, ``"ntk"``, ``"pixels"``, ...).
    """

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    gram: object
    labels: object = None
    name: str = ""

    def __post_init__(self):
        gram = _gram_source(self.gram)
        object.__setattr__(self, "gram", gram)
        n = None if isinstance(gram, Path) else gram.shape[0]
        object.__setattr__(self, "labels", _label_source(self.labels, n))
        object.__setattr__(self, "name", str(self.name))

    def iterate(self) -> Generator[Progress, None, "GramSpectrumResponse"]:
        from ntkviz.core.learning.gram_spectrum import gram_spectrum

        matrix, labels, meta, source, owned = yield from _read(self.gram, self.labels, "reading", 0.5)
        yield Progress(0.5, "eigendecomposition")
        if owned:
            matrix.setflags(write=True)  # ours: LAPACK may write over it
        spectrum = gram_spectrum(matrix, labels, overwrite=owned)
        yield Progress(0.9, "sphere reference")
        reference = _reference(meta, spectrum.size, spectrum.trace / spectrum.size)
        yield Progress(1.0, "done")
        return GramSpectrumResponse(self.name, source, spectrum, reference, meta)

    def __call__(self) -> GramSpectrumResponse:
        return run_to_end(self.iterate())


# ----------------------------------------------------------------------------- data theory
def _mean_sem(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error over the last axis (NaN error with one draw)."""
    mean = values.mean(axis=-1)
    count = values.shape[-1]
    sem = values.std(axis=-1, ddof=1) / math.sqrt(count) if count > 1 else np.full(mean.shape, np.nan)
    return mean, sem


@dataclass(frozen=True)
class DataTheoryResponse:
    """Theory and measurements on one pool (module docstring); arrays per label kind.

    Attributes
    ----------
    name, source : the kernel's name and where its Gram matrix came from.
    pool_size : N. ``mean_diagonal`` : ``tr K / N`` (the normalisation of K̃).
    ridge : δ, relative to the mean diagonal. ``draws``, ``seed``.
    n_values : training sizes, ascending. ``kinds`` : ``("true",)`` or ``("true", "random")``.
    spectrum : :class:`~ntkviz.core.learning.GramSpectrum` of K̃ (eigenvalues sum to 1) with
        the true labels' energy; ``energy[kind]`` the label energy per eigenvector.
    theory : ``{kind: FiniteTheory}`` at ``n_values``; ``curve`` the same on log-spaced n
        in [1, N - 1] (the predicted learning curve as a line).
    certificate, test_mse, accuracy : ``{kind: (len(n), draws) array}``.
    lambda_min : ``(len(n), draws)`` ``λ_min(H)``; ``pseudo_inverse`` ``(len(n), draws)`` bool.
    reference : the sphere reference of a store's kernel family (:func:`reference_kernel`),
        scaled to K̃'s trace (eigenvalues summing to 1), or None.
    """

    name: str
    source: str
    pool_size: int
    mean_diagonal: float
    ridge: float
    draws: int
    seed: int
    n_values: tuple
    kinds: tuple
    spectrum: object
    energy: dict
    theory: dict
    curve: dict
    certificate: dict
    test_mse: dict
    accuracy: dict
    lambda_min: np.ndarray
    pseudo_inverse: np.ndarray
    reference: object = None

    @property
    def fraction(self) -> float:
        return 1.0

    def cumulative_alignment(self, kind: str = "true") -> np.ndarray:
        """The share of the ``kind`` labels' energy on the top m eigenvectors, m = 1..N."""
        e = self.energy[kind]
        return np.cumsum(e) / float(e.sum())

    def csv_table(self) -> tuple[list[str], list[list]]:
        """One row per (n, labels): the columns of :data:`DATA_THEORY_CSV_COLUMNS`; means over
        the draws (standard errors blank with one draw); ``inverse`` is ``pinv`` when any
        draw's H was numerically singular (``pinv_draws`` of them), else ``solve``."""
        lam = self.lambda_min.mean(axis=1)
        pinv = self.pseudo_inverse.sum(axis=1)
        rows = []
        for j, n in enumerate(self.n_values):
            for kind in self.kinds:
                cert, cert_sem = _mean_sem(self.certificate[kind][j])
                mse, mse_sem = _mean_sem(self.test_mse[kind][j])
                acc, acc_sem = _mean_sem(self.accuracy[kind][j])
                th = self.theory[kind]
                rows.append([int(n), kind, float(cert), float(lam[j]), _cell(th.heldout_mse[j]),
                             float(mse), _cell(mse_sem), float(acc), _cell(cert_sem), _cell(acc_sem),
                             _cell(th.test_mse[j]), _cell(th.effective_ridge[j]),
                             "pinv" if pinv[j] else "solve", int(pinv[j])])
        return list(DATA_THEORY_CSV_COLUMNS), rows

    def summary(self) -> str:
        """One line: the pool, and the certificates and accuracy from the smallest to the largest n."""
        head = (f"pool N = {self.pool_size} (mean diagonal {self.mean_diagonal:.6g}), ridge {self.ridge:g}, "
                f"{self.draws} draw(s)")
        parts = []
        for kind in self.kinds:
            c = self.certificate[kind].mean(axis=1)
            a = self.accuracy[kind].mean(axis=1)
            parts.append(f"{kind} labels: certificate {c[0]:.3f} -> {c[-1]:.3f} (x{c[-1] / c[0]:.3f}), "
                         f"accuracy {a[0]:.3f} -> {a[-1]:.3f}")
        return f"{head}; n = {self.n_values[0]} -> {self.n_values[-1]}: " + "; ".join(parts)


def _cell(value) -> object:
    value = float(value)
    return value if math.isfinite(value) else ""


@dataclass(frozen=True, eq=False)
class DataTheoryRequest:
    """Theory against measurement on a pool (module docstring).

    Parameters
    ----------
    gram : str, Path or array
        The pool's Gram matrix: an ``ntkviz gram`` Zarr store, a ``.npy`` file or an array.
    labels : str, Path or array
        Integer class labels of the pool (N,), at least two classes (files as for
        :class:`GramSpectrumRequest`).
    n_values : sequence of int
        Distinct training sizes in [1, N - 1].
    ridge : float
        δ in [0, 1e6], relative to the mean diagonal (0: interpolation; a numerically
        singular H is then pseudo-inverted, and reported).
    draws : int
        Random training subsets per n, in [1, 1000].
    seed : int
        Seed of the subsets (``default_rng([seed, n, draw])``) and of the label permutation.
    random_labels : bool
        Also compute everything for a seeded permutation of the labels.
    name : str
        What the view calls this kernel.
    meta : dict or None
        For an array ``gram``: the ``ntkviz`` attribute its Gram store would have
        (:meth:`ntkviz.dataset._store.StoreMeta.to_attrs`: architecture, mode, input shape),
        from which the sphere reference of its kernel family is found
        (:func:`reference_kernel`). A store read from a path has its own; ignored then.
    """

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    gram: object
    labels: object
    n_values: tuple
    ridge: float = 0.0
    draws: int = 10
    seed: int = 0
    random_labels: bool = False
    name: str = ""
    meta: dict | None = None

    def __post_init__(self):
        gram = _gram_source(self.gram)
        object.__setattr__(self, "gram", gram)
        size = None if isinstance(gram, Path) else gram.shape[0]
        if self.labels is None:
            raise ValueError("labels are required (integer class labels, one per Gram row)")
        object.__setattr__(self, "labels", _label_source(self.labels, size))
        ns = tuple(self.n_values) if not isinstance(self.n_values, (str, bytes)) else ()
        if not ns:
            raise ValueError("n_values must list at least one training size")
        ns = tuple(check_int("n", n, (1, None if size is None else size - 1)) for n in ns)
        if len(set(ns)) != len(ns):
            raise ValueError(f"n_values must be distinct, got {ns}")
        object.__setattr__(self, "n_values", tuple(sorted(ns)))
        object.__setattr__(self, "ridge", check_float("ridge", self.ridge, limits.RIDGE_RANGE))
        object.__setattr__(self, "draws", check_int("draws", self.draws, limits.DATA_DRAWS_RANGE))
        object.__setattr__(self, "seed", check_int("seed", self.seed, limits.SEED_RANGE))
        if not isinstance(self.random_labels, (bool, np.bool_)):
            raise ValueError(f"random_labels must be True or False, got {self.random_labels!r}")
        object.__setattr__(self, "random_labels", bool(self.random_labels))
        object.__setattr__(self, "name", str(self.name))
        if self.meta is not None and not isinstance(self.meta, dict):
            raise ValueError(f"meta must be a dict (a Gram store's ntkviz attribute) or None, got "
                             f"{type(self.meta).__name__}")

    def iterate(self) -> Generator[Progress, None, "DataTheoryResponse"]:
        from ntkviz.core.learning import centred_one_hot, finite_learning_theory, subset_fit
        from ntkviz.core.learning.gram_spectrum import decompose, label_energy, spectrum_from_eigenpairs

        matrix, labels, meta, source, owned = yield from _read(self.gram, self.labels, "reading", 0.15)
        if not meta and self.meta:
            meta = self.meta
        size = matrix.shape[0]
        if self.n_values[-1] >= size:
            raise ValueError(f"n must be in [1, {size - 1}] (below the pool size N = {size}), "
                             f"got {self.n_values[-1]}")
        mean_diagonal = float(np.trace(matrix)) / size
        if not mean_diagonal > 0:
            raise ValueError(f"Gram matrix has mean diagonal {mean_diagonal:g}; a kernel's must be > 0")
        if owned:
            matrix.setflags(write=True)
            matrix /= mean_diagonal
            gram = matrix
        else:
            gram = matrix / mean_diagonal
        gram.setflags(write=False)
        yield Progress(0.15, "pool eigendecomposition")
        values, vectors = decompose(gram)
        y_true, classes = centred_one_hot(labels)
        index = np.searchsorted(classes, labels)
        targets = {"true": (y_true, index)}
        if self.random_labels:
            perm = np.random.default_rng([self.seed, 0x5EED]).permutation(size)
            targets["random"] = (y_true[perm], index[perm])
        kinds = tuple(targets)
        spectrum = spectrum_from_eigenpairs(values, vectors, float(np.trace(gram)), y_true)
        mu = np.where(spectrum.trustworthy, spectrum.eigenvalues, 0.0)
        energy, theory, curve = {}, {}, {}
        grid = np.unique(np.round(np.geomspace(1, size - 1, CURVE_POINTS)))
        for kind, (y, _) in targets.items():
            energy[kind] = label_energy(vectors, y)
            power = energy[kind] / size
            theory[kind] = finite_learning_theory(mu, power, self.n_values, self.ridge, size)
            curve[kind] = finite_learning_theory(mu, power, grid, self.ridge, size)
        del vectors
        shape = (len(self.n_values), self.draws)
        cert = {k: np.empty(shape) for k in kinds}
        mse = {k: np.empty(shape) for k in kinds}
        acc = {k: np.empty(shape) for k in kinds}
        lam = np.empty(shape)
        pinv = np.zeros(shape, dtype=bool)
        work = [float(n) ** 3 + size * n * len(classes) for n in self.n_values]
        total, done = sum(work) * self.draws, 0.0
        ys = [targets[k][0] for k in kinds]
        cls = [targets[k][1] for k in kinds]
        for j, n in enumerate(self.n_values):
            for d in range(self.draws):
                train = np.random.default_rng([self.seed, n, d]).choice(size, n, replace=False)
                fit = subset_fit(gram, train, self.ridge, ys, cls)
                for i, kind in enumerate(kinds):
                    cert[kind][j, d], mse[kind][j, d], acc[kind][j, d] = (
                        fit.certificate[i], fit.test_mse[i], fit.accuracy[i])
                lam[j, d], pinv[j, d] = fit.lambda_min, fit.pseudo_inverse
                done += work[j]
                yield Progress(0.2 + 0.8 * done / total, f"n = {n}, draw {d + 1}/{self.draws}")
        return DataTheoryResponse(self.name, source, size, mean_diagonal, self.ridge, self.draws, self.seed,
                                  self.n_values, kinds, spectrum, energy, theory, curve, cert, mse, acc,
                                  lam, pinv, _reference(meta, size, 1.0))

    def __call__(self) -> DataTheoryResponse:
        return run_to_end(self.iterate())
