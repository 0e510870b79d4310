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
(atomic), so a crash leaves each tile either complete or absent. When a store is
opened again (:func:`open_store` to compute into it, :func:`open_gram_store` to
read it):

* its metadata files (``zarr.json`` of the group and of both arrays) must be
  readable: an error names the broken file;
* the group attribute must describe the same computation (above), and both arrays
  must have the shape, dtype and chunking that computation writes: a store edited
  since is refused before anything is written;
* every tile recorded as done is read back and checked against its sha256: a tile
  whose bytes do not decode (a chunk cut to 0 bytes by a power loss, cut short, a
  damaged zstd frame) or do not match is *damaged* and computed again (counted in
  :attr:`GramStore.damaged`), as is a tile whose checksum chunk is unreadable.

A write that fails (a full disk) raises ``OSError`` naming the store; the tiles
written before stay valid, so rerunning the same command resumes.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["StoreMeta", "TileGrid", "GramStore", "MemoryTarget", "open_store", "open_gram_store",
           "FORMAT"]

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

    damaged: frozenset = frozenset()  # a matrix in RAM is never damaged

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
    """A Zarr Gram store opened by :func:`open_store` (to compute into) or
    :func:`open_gram_store` (read-only); see the module docstring.

    ``damaged`` collects the tiles :meth:`done` found recorded but unreadable (bytes that
    do not decode) or not matching their checksum; they are computed again.
    """

    def __init__(self, path: Path, group, grid: TileGrid, meta: "StoreMeta | None" = None):
        self.path = path
        self.group = group
        self.grid = grid
        self.meta = meta
        self.gram = group["gram"]
        self.marks = group["tile_sha256"]
        self.damaged: set[tuple[int, int]] = set()
        self._done = None
        self._unreadable_marks: set[tuple[int, int]] = set()

    def _load_marks(self) -> np.ndarray:
        if self._done is None:
            try:
                self._done = np.asarray(self.marks[:])
            except Exception:  # noqa: BLE001 - a damaged checksum chunk: read them one by one
                gi, gj = self.grid.shape
                marks = np.zeros((gi, gj, 32), np.uint8)
                for i in range(gi):
                    for j in range(gj):
                        try:
                            marks[i, j] = self.marks[i, j, :]
                        except Exception:  # noqa: BLE001 - bytes that do not decode
                            self._unreadable_marks.add((i, j))
                self._done = marks
        return self._done

    def done(self, i: int, j: int) -> bool:
        """True when tile (i, j) was written completely (its bytes decode and match the
        recorded sha256). A tile recorded as written that fails this is added to
        :attr:`damaged`."""
        mark = self._load_marks()[i, j]
        if (i, j) in self._unreadable_marks:
            self.damaged.add((i, j))
            return False
        if not mark.any():
            return False
        g = self.grid
        try:
            block = np.asarray(self.gram[g.rows(i), g.cols(j)])
            lower = np.asarray(self.gram[g.cols(j), g.rows(i)]) if g.symmetric and i != j else block.T
        except Exception:  # noqa: BLE001 - zstd, buffer-size or codec errors: bytes that do not decode
            self.damaged.add((i, j))
            return False
        if not (np.array_equal(_sha(block), mark) and np.array_equal(lower, block.T)):
            self.damaged.add((i, j))
            return False
        return True

    def _chunk_files(self, i: int, j: int) -> list[Path]:
        keys = [("tile_sha256", self.marks, (i, j, 0)), ("gram", self.gram, (i, j))]
        if self.grid.symmetric and i != j:
            keys.append(("gram", self.gram, (j, i)))
        return [self.path / name / arr.metadata.encode_chunk_key(coords) for name, arr, coords in keys]

    def write(self, i: int, j: int, block: np.ndarray) -> None:
        """Write tile (i, j) (and its transpose for a symmetric matrix), then its checksum.

        The tile's old chunk files go first: a partial tile (the last row or column) is
        merged into its chunk by Zarr, which would otherwise decode damaged bytes. A
        failed write (a full disk) raises ``OSError`` naming the store; the tiles already
        written stay valid."""
        g = self.grid
        block = np.ascontiguousarray(block, dtype=np.float64)
        try:
            for f in self._chunk_files(i, j):
                f.unlink(missing_ok=True)
            self.gram[g.rows(i), g.cols(j)] = block
            if g.symmetric and i != j:
                self.gram[g.cols(j), g.rows(i)] = np.ascontiguousarray(block.T)
            mark = _sha(block)
            self.marks[i:i + 1, j:j + 1, :] = mark[None, None, :]
        except OSError as exc:
            raise OSError(exc.errno, f"cannot write tile ({i}, {j}): {exc.strerror or exc}; the tiles "
                                     "written so far are kept: rerun to resume", str(self.path)) from None
        if self._done is not None:
            self._done[i, j] = mark
            self._unreadable_marks.discard((i, j))

    def read(self) -> np.ndarray:
        return np.asarray(self.gram[:])

    def missing_tiles(self) -> list[tuple[int, int]]:
        """Tiles of the grid not (validly) written: never computed, or damaged."""
        return [(i, j) for i, j in self.grid.tiles() if not self.done(i, j)]

    def complete_matrix(self) -> np.ndarray:
        """The whole matrix, every tile checked against its sha256; ``ValueError`` (one line,
        naming the store) when a tile is missing or damaged."""
        missing = self.missing_tiles()
        if missing:
            raise ValueError(f"{self.path}: {len(missing)} of {len(self.grid.tiles())} tiles are missing or "
                             f"damaged (first: tile {missing[0]}); rerun the ntkviz gram command that made "
                             "the store to complete it")
        return self.read()


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

    @classmethod
    def from_attrs(cls, path, attrs) -> "StoreMeta":
        """The :class:`StoreMeta` of a store's ``ntkviz`` group attribute (``ValueError``
        naming ``path`` when it is missing, of another format or not well formed)."""
        if not isinstance(attrs, dict):
            raise ValueError(f"{Path(path) / 'zarr.json'}: no group attribute 'ntkviz': not an ntkviz Gram store")
        if attrs.get("format") != FORMAT:
            raise ValueError(f"{path}: store format {_describe(attrs.get('format'))}, this ntkviz reads {FORMAT}")

        def shape(value, optional=False):
            if value is None and optional:
                return None
            if not (isinstance(value, list) and len(value) in (3, 4)
                    and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)):
                raise ValueError(f"{path}: group attribute ntkviz has an invalid image shape "
                                 f"{_describe(value)}")
            return tuple(value)

        tile = attrs.get("tile_size")
        if isinstance(tile, bool) or not isinstance(tile, int) or tile < 1:
            raise ValueError(f"{path}: group attribute ntkviz has an invalid tile_size {_describe(tile)}")
        try:
            return cls(dict(attrs["architecture"]), str(attrs["mode"]), str(attrs["input_hash"]),
                       shape(attrs["input_shape"]),
                       None if attrs.get("input_hash_b") is None else str(attrs["input_hash_b"]),
                       shape(attrs.get("input_shape_b"), optional=True), tile,
                       str(attrs["ntkviz_version"]), str(attrs.get("engine", "")))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ValueError) and str(path) in str(exc):
                raise
            raise ValueError(f"{path}: group attribute ntkviz lacks a valid {exc}") from None

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


def open_store(path, meta: StoreMeta) -> GramStore:
    """Open ``path`` (a ``.zarr`` directory) to compute the matrix of ``meta`` into, creating
    it if absent or an empty folder.

    Raises ``ValueError`` (one line, naming the store or its broken file) when ``path``
    exists but is not an ntkviz Gram store, has unreadable metadata, was made with another
    architecture, mode, input, tile size, ntkviz version or kernel engine, or holds arrays of
    another shape, dtype or chunking than this run writes: nothing in it is touched then.
    """
    import zarr

    path = Path(path)
    attrs = meta.to_attrs()
    grid = meta.grid()
    if path.exists() and not path.is_dir():
        raise ValueError(f"{path}: exists and is not a Zarr store (a directory)")
    if path.is_dir() and any(path.iterdir()):
        group = _open_group(path, "r+")
        found = dict(group.attrs).get("ntkviz")
        if not isinstance(found, dict):
            raise ValueError(f"{path / 'zarr.json'}: no group attribute 'ntkviz': not an ntkviz Gram store; "
                             "choose another --out")
        for key, value in attrs.items():
            if found.get(key) != value:
                raise ValueError(
                    f"{path}: store was made with another {_WHAT[key]} ({_describe(found.get(key))}, "
                    f"now {_describe(value)}); refusing to mix results: use another --out or delete it")
        _check_arrays(path, group, grid, require=False)
        return GramStore(path, _with_arrays(group, grid), grid, meta)
    if not path.parent.is_dir():
        raise ValueError(f"{path.parent}: output folder does not exist")
    group = zarr.create_group(str(path), attributes={"ntkviz": attrs})  # also into an empty folder
    return GramStore(path, _with_arrays(group, grid), grid, meta)


def open_gram_store(path) -> GramStore:
    """Open an existing ntkviz Gram store **read-only**, with every check of :func:`open_store`
    that does not need the inputs.

    Checked: ``path`` is a directory; its Zarr metadata files are readable (an error names
    the broken file); the group attribute ``ntkviz`` describes a Gram store of this format
    (:attr:`GramStore.meta` is its :class:`StoreMeta`); the arrays ``gram`` and
    ``tile_sha256`` exist with the shape, dtype and chunking that description implies.
    Nothing is written. Read the matrix with :meth:`GramStore.complete_matrix` (every tile
    checked against its sha256) or look at :meth:`GramStore.missing_tiles`. Raises
    ``ValueError`` with one line naming the store (or file) otherwise.
    """
    path = Path(path)
    if not path.is_dir():
        raise ValueError(f"{path}: not a Zarr store ({'no such folder' if not path.exists() else 'not a folder'})")
    group = _open_group(path, "r")
    meta = StoreMeta.from_attrs(path, dict(group.attrs).get("ntkviz"))
    grid = meta.grid()
    _check_arrays(path, group, grid, require=True)
    return GramStore(path, group, grid, meta)


def _metadata_error(file: Path, exc: BaseException) -> ValueError:
    what = str(exc).splitlines()[0].rstrip(".") if str(exc) else type(exc).__name__
    return ValueError(f"{file}: unreadable Zarr metadata ({what[:120]}); the store cannot be used: "
                      "delete it or choose another output")


def _read_json(file: Path) -> None:
    try:
        json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = f"not valid JSON: {exc.msg}" if isinstance(exc, json.JSONDecodeError) else exc
        raise _metadata_error(file, reason) from None


def _open_group(path: Path, mode: str):
    """The Zarr group at ``path``; ``ValueError`` naming the file whose metadata is broken,
    or saying plainly that the folder is not a Zarr store."""
    import zarr

    top = path / "zarr.json"
    if not top.is_file():
        raise ValueError(f"{path}: exists and is not a Zarr store (no zarr.json in it); choose another "
                         "--out, or an empty or new folder")
    for file in (top, path / "gram" / "zarr.json", path / "tile_sha256" / "zarr.json"):
        if file.exists():
            _read_json(file)
    try:
        return zarr.open_group(str(path), mode=mode)
    except Exception as exc:  # noqa: BLE001 - zarr raises many kinds; the file and one line
        raise _metadata_error(top, exc) from None


def _member(path: Path, group, name: str):
    try:
        return group[name]
    except KeyError:
        return None
    except Exception as exc:  # noqa: BLE001 - valid JSON that is not Zarr metadata
        raise _metadata_error(path / name / "zarr.json", exc) from None


def _check_arrays(path: Path, group, grid: TileGrid, require: bool) -> None:
    """Refuse a store whose ``gram`` / ``tile_sha256`` arrays differ from what ``grid`` writes
    (shape, dtype, chunks), or are groups; absent arrays are refused only if ``require``."""
    import zarr

    gi, gj = grid.shape
    expected = {"gram": ((grid.n_rows, grid.n_cols), np.dtype(np.float64), (grid.tile, grid.tile)),
                "tile_sha256": ((gi, gj, 32), np.dtype(np.uint8), (1, 1, 32))}
    for name, (shape, dtype, chunks) in expected.items():
        arr = _member(path, group, name)
        if arr is None:
            if require:
                raise ValueError(f"{path}: no array {name}; not a complete ntkviz Gram store")
            continue
        if not isinstance(arr, zarr.Array):
            raise ValueError(f"{path}: {name} is not an array (a group); not an ntkviz Gram store: "
                             "use another --out or delete it")
        found = (tuple(arr.shape), np.dtype(arr.dtype), tuple(arr.chunks))
        if found != (shape, dtype, chunks):
            raise ValueError(f"{path}: array {name} has shape {found[0]}, dtype {found[1]}, chunks {found[2]}; "
                             f"this store needs shape {shape}, dtype {dtype}, chunks {chunks} (it was changed "
                             "after ntkviz made it): use another --out or delete it")


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
