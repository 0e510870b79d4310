"""Reading a whole Gram matrix and its labels for the spectral and data-theory tools.

:func:`read_gram` is the one way these tools read a Gram matrix: an ``ntkviz gram`` Zarr
store (through :func:`ntkviz.dataset.open_gram_store`; every tile must be present and
match its sha256) or a ``.npy`` file. :func:`read_labels` reads the matching class labels.
Both raise a one-line ``ValueError`` naming the file and what is wrong.

Memory: the matrix is one ``N x N`` float64 array, ``8 N²`` bytes (8 MB for N = 1,000,
3.2 GB for N = 20,000); a ``.npy`` file is memory-mapped and copied once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

__all__ = ["GramMatrix", "read_gram", "read_gram_blocks", "read_labels", "GRAM_SUFFIXES"]

GRAM_SUFFIXES = (".zarr", ".npy")


@dataclass(frozen=True, eq=False)
class GramMatrix:
    """A square, symmetric, finite float64 Gram matrix (read-only) and where it came from.

    ``meta`` is the store's ``ntkviz`` attribute (architecture, mode, input shape, ...)
    for a Zarr store, an empty dict for a ``.npy`` file."""

    matrix: np.ndarray
    source: str
    meta: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        return int(self.matrix.shape[0])


def read_gram(path, max_size: int) -> GramMatrix:
    """The Gram matrix in ``path`` (``.zarr`` store or ``.npy``), at most ``max_size`` rows;
    :func:`read_gram_blocks` without progress."""
    blocks = read_gram_blocks(path, max_size)
    while True:
        try:
            next(blocks)
        except StopIteration as stop:
            return stop.value


def read_gram_blocks(path, max_size: int) -> Iterator[float]:
    """Read the Gram matrix in ``path``: a generator yielding the fraction of rows read and
    returning a :class:`GramMatrix`.

    A Zarr store is opened by :func:`ntkviz.dataset.open_gram_store` (the one reader of
    Gram stores) and read by :meth:`~ntkviz.dataset._store.GramStore.complete_matrix`: an
    ``ntkviz gram`` store of a square matrix whose every tile was written and matches its
    checksum (an incomplete store is refused: rerun ``ntkviz gram`` with the same arguments
    to finish it). Every matrix must be square with at most
    ``max_size`` rows, finite and symmetric to
    :data:`ntkviz.core.learning.gram_spectrum.SYMMETRY_TOLERANCE` (it is then made exactly
    symmetric).
    """
    path = Path(path)
    if not path.exists():
        raise ValueError(f"{path}: no such file or store")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        matrix, meta = _read_npy(path, max_size), {}
        yield 1.0
    elif suffix == ".zarr":
        from ntkviz.dataset._store import open_gram_store

        store = open_gram_store(path)  # every check of the store's metadata and arrays
        grid = store.grid
        _check_shape((grid.n_rows, grid.n_cols), str(path), max_size)
        yield 0.0
        matrix = np.asarray(store.complete_matrix(), dtype=np.float64)  # every tile against its sha256
        if not matrix.flags.writeable:
            matrix = matrix.copy()
        meta = store.meta.to_attrs()
        yield 1.0
    else:
        raise ValueError(f"{path}: a Gram matrix must be a .zarr store (ntkviz gram) or a .npy file")
    return GramMatrix(_checked(matrix, str(path)), str(path), meta)


def _read_npy(path: Path, max_size: int) -> np.ndarray:
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"{path}: unreadable .npy file ({exc})") from None
    _check_shape(arr.shape, str(path), max_size)
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"{path}: a Gram matrix must hold real numbers, got dtype {arr.dtype}")
    return np.array(arr, dtype=np.float64)


def _check_shape(shape, source: str, max_size: int) -> None:
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"{source}: a Gram matrix must be square (N, N), got shape {tuple(shape)}"
                         + (" (a cross matrix of two image sets)" if len(shape) == 2 else ""))
    if not 2 <= shape[0] <= max_size:
        raise ValueError(f"{source}: Gram matrix size N must be in [2, {max_size}], got {shape[0]} "
                         f"(the eigendecomposition needs about 3-4 x 8 N² bytes of memory)")


def _checked(matrix: np.ndarray, source: str) -> np.ndarray:
    """``matrix`` (float64, owned) checked, made exactly symmetric in place and read-only."""
    from ntkviz.core.learning.gram_spectrum import check_gram

    matrix = check_gram(matrix, f"{source}: Gram matrix")
    if not np.array_equal(matrix, matrix.T):
        matrix += matrix.T
        matrix *= 0.5
    matrix.setflags(write=False)
    return matrix


def read_labels(path, n: int) -> np.ndarray:
    """Integer class labels ``(n,)`` from ``path``: a ``.npy`` 1-D array, a ``.npz`` with arrays
    ``images`` and ``labels`` (the images file given to ``ntkviz gram``; read by
    :func:`ntkviz.dataset.load_dataset`) or an MNIST ``*-labels-idx1-ubyte[.gz]`` file. Its
    length must be ``n`` (the Gram matrix's size)."""
    from ntkviz.core.deformations.digits import read_npy
    from ntkviz.dataset._load import _labels, load_dataset, read_idx

    path = Path(path)
    if path.is_dir() or not path.exists():
        raise ValueError(f"{path}: no such labels file")
    name = path.name.lower()
    if "-labels-idx1-ubyte" in name or "-labels.idx1-ubyte" in name:
        raw = read_idx(path)
    elif path.suffix.lower() == ".npy":
        raw = read_npy(path)
    elif path.suffix.lower() == ".npz":
        raw = load_dataset(path).require_labels("--labels")
    else:
        raise ValueError(f"{path}: labels must be a .npy array, a .npz with 'images' and 'labels' or an "
                         "MNIST *-labels-idx1-ubyte[.gz] file")
    if np.ndim(raw) == 1 and len(raw) != n:
        raise ValueError(f"{path}: {len(raw)} labels, the Gram matrix has {n} rows; give the labels "
                         "of the images the matrix was computed from, in their order")
    labels = _labels(raw, n, str(path))
    if labels.size and labels.min() < 0:
        raise ValueError(f"{path}: labels must be class numbers >= 0, got {int(labels.min())}")
    return labels
