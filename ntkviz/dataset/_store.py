"""Tiled, resumable Gram-matrix stores (Zarr v3 directory stores).

Layout of ``K.zarr`` (readable with ``zarr.open_group(path)["gram"][:]``):

* array ``gram``: the (N, M) float64 matrix, one Zarr chunk per tile
  (``tile x tile``); never-computed entries are NaN.
* array ``tile_sha256``: (rows of tiles, columns of tiles, 32) uint8, one chunk per
  tile: the sha256 of the tile's bytes (C order, float64), written *after* the
  tile. All zeros means "not done". For a symmetric matrix only tiles ``I <= J``
  are computed; tile ``(I, J)`` is written, then its transpose into ``(J, I)``,
  then the checksum.
* group attribute ``ntkviz``: what the matrix is (architecture, mode, sha256 of
  the input images and their shape, ntkviz version, a sha256 of the kernel engine's
  sources ``ntkviz/core/conv/*.py`` (values of another engine may differ in the last
  digits), tile size, shape). Opening
  an existing store with any other value is refused, so results of different
  inputs are never mixed.

Zarr's local store writes every chunk to a temporary file and renames it
(atomic), so a crash leaves each tile either complete or absent; the checksum
is verified when a store is resumed, and a tile whose bytes do not match is
computed again.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["StoreMeta", "TileGrid", "GramStore", "MemoryTarget", "open_store", "FORMAT"]

FORMAT = "ntkviz-gram-tiles/1"


@dataclass(frozen=True)
class TileGrid:
    """Tiles of side ``tile`` covering an (n_rows, n_cols) matrix; ``symmetric``
    grids list only the upper tiles ``I <= J``."""

    n_rows: int
    n_cols: int
    tile: int
    symmetric: bool

    @property
    def shape(self) -> tuple[int, int]:
        return math.ceil(self.n_rows / self.tile), math.ceil(self.n_cols / self.tile)

    def tiles(self) -> list[tuple[int, int]]:
        gi, gj = self.shape
        return [(i, j) for i in range(gi) for j in range(gj) if not self.symmetric or i <= j]

    def rows(self, i: int) -> slice:
        return slice(i * self.tile, min((i + 1) * self.tile, self.n_rows))

    def cols(self, j: int) -> slice:
        return slice(j * self.tile, min((j + 1) * self.tile, self.n_cols))

    def pairs(self, i: int, j: int) -> int:
        """Kernel evaluations of tile (i, j) (a diagonal tile of a symmetric grid: i <= j pairs)."""
        r, c = self.rows(i), self.cols(j)
        nr, nc = r.stop - r.start, c.stop - c.start
        return nr * (nr + 1) // 2 if self.symmetric and i == j else nr * nc


def _sha(block: np.ndarray) -> np.ndarray:
    digest = hashlib.sha256(np.ascontiguousarray(block, dtype=np.float64).tobytes()).digest()
    return np.frombuffer(digest, np.uint8)


class MemoryTarget:
    """A Gram matrix held in RAM (for ``.npy`` output and small runs); same API as :class:`GramStore`."""

    def __init__(self, grid: TileGrid):
        self.grid = grid
        self.matrix = np.full((grid.n_rows, grid.n_cols), np.nan)

    def done(self, i: int, j: int) -> bool:
        return False

    def write(self, i: int, j: int, block: np.ndarray) -> None:
        g = self.grid
        self.matrix[g.rows(i), g.cols(j)] = block
        if g.symmetric and i != j:
            self.matrix[g.cols(j), g.rows(i)] = block.T

    def read(self) -> np.ndarray:
        return self.matrix


class GramStore:
    """A Zarr Gram store opened by :func:`open_store` (see the module docstring)."""

    def __init__(self, path: Path, group, grid: TileGrid):
        self.path = path
        self.group = group
        self.grid = grid
        self.gram = group["gram"]
        self.marks = group["tile_sha256"]
        self._done = None

    def _load_marks(self) -> np.ndarray:
        if self._done is None:
            self._done = np.asarray(self.marks[:])
        return self._done

    def done(self, i: int, j: int) -> bool:
        """True when tile (i, j) was written completely (its bytes match the recorded sha256)."""
        mark = self._load_marks()[i, j]
        if not mark.any():
            return False
        g = self.grid
        block = np.asarray(self.gram[g.rows(i), g.cols(j)])
        if not np.array_equal(_sha(block), mark):
            return False
        if g.symmetric and i != j:
            lower = np.asarray(self.gram[g.cols(j), g.rows(i)])
            return bool(np.array_equal(lower, block.T))
        return True

    def write(self, i: int, j: int, block: np.ndarray) -> None:
        """Write tile (i, j) (and its transpose for a symmetric matrix), then its checksum."""
        g = self.grid
        block = np.ascontiguousarray(block, dtype=np.float64)
        self.gram[g.rows(i), g.cols(j)] = block
        if g.symmetric and i != j:
            self.gram[g.cols(j), g.rows(i)] = np.ascontiguousarray(block.T)
        mark = _sha(block)
        self.marks[i:i + 1, j:j + 1, :] = mark[None, None, :]
        if self._done is not None:
            self._done[i, j] = mark

    def read(self) -> np.ndarray:
        return np.asarray(self.gram[:])


@dataclass(frozen=True)
class StoreMeta:
    """What a store holds; two stores are interchangeable only if these are all equal."""

    architecture: dict
    mode: str
    input_hash: str
    input_shape: tuple
    input_hash_b: str | None
    input_shape_b: tuple | None
    tile: int
    version: str
    engine: str = ""

    def to_attrs(self) -> dict:
        return {"format": FORMAT, "architecture": self.architecture, "mode": self.mode,
                "input_hash": self.input_hash, "input_shape": list(self.input_shape),
                "input_hash_b": self.input_hash_b,
                "input_shape_b": None if self.input_shape_b is None else list(self.input_shape_b),
                "tile_size": self.tile, "ntkviz_version": self.version, "engine": self.engine}

    def grid(self) -> TileGrid:
        n = self.input_shape[0]
        m = n if self.input_shape_b is None else self.input_shape_b[0]
        return TileGrid(n, m, self.tile, self.input_shape_b is None)


_WHAT = {"format": "store format", "architecture": "architecture", "mode": "mode",
         "input_hash": "input images", "input_shape": "input images shape",
         "input_hash_b": "second image set (--images-b)", "input_shape_b": "second image set shape",
         "tile_size": "tile size", "ntkviz_version": "ntkviz version",
         "engine": "kernel engine (ntkviz/core/conv changed since)"}


def _describe(value) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:16] + "…"


def open_store(path, meta: StoreMeta):
    """Open ``path`` (a ``.zarr`` directory) for ``meta``, creating it if absent.

    Raises ``ValueError`` (one line, naming the store) when ``path`` exists but
    is not an ntkviz Gram store, or was made with another architecture, mode,
    input, tile size or ntkviz version: nothing in it is touched then.
    """
    import zarr

    path = Path(path)
    attrs = meta.to_attrs()
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"{path}: exists and is not a Zarr store (a directory)")
        try:
            group = zarr.open_group(str(path), mode="r+")
            found = dict(group.attrs).get("ntkviz")
        except Exception as exc:  # noqa: BLE001 - zarr raises many kinds; report one line
            raise ValueError(f"{path}: exists and is not a readable Zarr store ({type(exc).__name__})") from None
        if not isinstance(found, dict):
            raise ValueError(f"{path}: exists and is not an ntkviz Gram store; choose another --out")
        for key, value in attrs.items():
            if found.get(key) != value:
                raise ValueError(
                    f"{path}: store was made with another {_WHAT[key]} ({_describe(found.get(key))}, "
                    f"now {_describe(value)}); refusing to mix results: use another --out or delete it")
        return GramStore(path, _with_arrays(group, meta.grid()), meta.grid())
    if not path.parent.is_dir():
        raise ValueError(f"{path.parent}: output folder does not exist")
    group = zarr.create_group(str(path), attributes={"ntkviz": attrs})
    return GramStore(path, _with_arrays(group, meta.grid()), meta.grid())


def _with_arrays(group, grid: TileGrid):
    """Create the arrays of a store made by :func:`open_store` (also after a crash between
    the group's metadata and its arrays)."""
    members = set(group.array_keys())
    if "gram" not in members:
        group.create_array("gram", shape=(grid.n_rows, grid.n_cols), chunks=(grid.tile, grid.tile),
                           dtype="float64", fill_value=float("nan"))
    if "tile_sha256" not in members:
        gi, gj = grid.shape
        group.create_array("tile_sha256", shape=(gi, gj, 32), chunks=(1, 1, 32), dtype="uint8",
                           fill_value=0)
    return group
