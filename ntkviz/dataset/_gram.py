"""A CKN/NTK Gram (or cross) matrix over tiles: targets, engines, Dask clients."""
from __future__ import annotations

import logging
import math
from contextlib import contextmanager
from typing import Iterator

import numpy as np

from ntkviz.core.conv.architecture import Architecture, architecture_to_dict
from ntkviz.dataset._engine import KINDS, TileEvent, run_tiles
from ntkviz.dataset._load import images_hash
from ntkviz.dataset._store import MemoryTarget, StoreMeta, TileGrid, open_store

__all__ = ["GramRun", "compute_gram", "dask_client", "gram_meta", "CONNECT_TIMEOUT_S", "MAX_TILE"]

#: seconds to wait for an existing Dask scheduler before giving up
CONNECT_TIMEOUT_S = 5.0
#: largest tile side (a tile's two float64 blocks stay well below 100 MiB)
MAX_TILE = 2048


def gram_meta(arch: Architecture, mode: str, a: np.ndarray, b: np.ndarray | None, tile: int) -> StoreMeta:
    """The identity of a Gram store: architecture, mode, input hashes and shapes, tile, version."""
    from ntkviz import __version__

    return StoreMeta(architecture_to_dict(arch), mode, images_hash(a), tuple(a.shape),
                     None if b is None else images_hash(b), None if b is None else tuple(b.shape),
                     int(tile), __version__, engine_fingerprint())


def engine_fingerprint() -> str:
    """sha256 (16 hex digits) of the conv engine's sources (every module of
    :mod:`ntkviz.core.conv` but its test reference): a store is resumed only by the code
    that started it (a frozen build without sources: its version alone)."""
    import hashlib
    from pathlib import Path

    import ntkviz.core.conv as conv

    h = hashlib.sha256()
    try:
        sources = [f for f in sorted(Path(conv.__file__).parent.glob("*.py")) if f.name != "_reference.py"]
        for f in sources:
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    except (OSError, TypeError):
        return "frozen"
    return h.hexdigest()[:16] if sources else "frozen"


def _check_inputs(a: np.ndarray, b: np.ndarray | None, arch: Architecture, kinds, tile: int) -> None:
    if isinstance(tile, bool) or not isinstance(tile, (int, np.integer)) or not 1 <= tile <= MAX_TILE:
        raise ValueError(f"tile size must be an integer in [1, {MAX_TILE}], got {tile!r}")
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"kernel must be one of {', '.join(KINDS)}, got {kind!r}")
        arch.check_mode(kind)
    if b is not None and b.shape[1:] != a.shape[1:]:
        raise ValueError(f"images-b have shape {b.shape[1:]} per image, images have {a.shape[1:]}; "
                         "both sets must have the same image size and channels")
    try:
        arch.layer_sizes(a.shape[1], a.shape[2])
    except ValueError as exc:
        raise ValueError(f"model does not fit {a.shape[1]}x{a.shape[2]} images: {exc}") from None


def _rescale_factor(a: np.ndarray, b: np.ndarray | None) -> float:
    """The power of two the conv engine divides huge images by (1.0 for ordinary ones):
    both kernels are homogeneous of degree 2, so ``K(x, y) = c^2 K(x / c, y / c)`` exactly,
    while unscaled patch sums of pixels beyond ~2^64 would overflow. One factor for the
    whole matrix, as :func:`ntkviz.core.conv.gram.gram_iter` does."""
    from ntkviz.core.conv.gram import homogeneous_rescale

    peak = np.array([np.max(np.abs(a)), 0.0 if b is None else np.max(np.abs(b))])
    return float(homogeneous_rescale(peak)[1])


class GramRun:
    """One tiled computation of the ``kinds`` (``"ckn"``, ``"ntk"``) matrices of images ``a``
    (symmetric) or ``a`` x ``b`` (cross), into Zarr stores (``stores[kind]`` a path) or
    memory (``stores`` None). Opening a store that holds other inputs raises ``ValueError``
    before anything is computed. Iterate :meth:`events` to compute; then :meth:`matrix`.
    """

    def __init__(self, a: np.ndarray, b: np.ndarray | None, arch: Architecture, kinds=("ntk",),
                 tile: int = 256, stores: dict | None = None):
        arch = arch.validated()
        kinds = tuple(kinds)
        _check_inputs(a, b, arch, kinds, tile)
        self.a, self.b, self.arch, self.kinds, self.tile = a, b, arch, kinds, int(tile)
        self.scale = _rescale_factor(a, b)
        self.grid = TileGrid(a.shape[0], a.shape[0] if b is None else b.shape[0], self.tile, b is None)
        if stores is None:
            self.targets = {k: MemoryTarget(self.grid) for k in kinds}
        else:
            self.targets = {k: open_store(stores[k], gram_meta(arch, k, a, b, self.tile)) for k in kinds}
        self.total_pairs = sum(self.grid.pairs(i, j) for i, j in self.grid.tiles())
        self.tiles_total = len(self.grid.tiles())
        self.tiles_skipped = 0
        self.tiles_computed = 0
        self.pairs_computed = 0

    def events(self, client=None) -> Iterator[TileEvent]:
        """Compute the missing tiles (``client``: a ``distributed.Client`` or None for
        in-process) and yield :class:`TileEvent` s; skipped tiles count as done."""
        c = self.scale
        a, b = (self.a, self.b) if c == 1.0 else (self.a / c, None if self.b is None else self.b / c)
        for ev in run_tiles(a, b, self.arch, self.grid, self.targets, client, c * c):
            self.pairs_computed += ev.pairs
            if ev.tile is not None:
                if ev.skipped:
                    self.tiles_skipped += 1
                else:
                    self.tiles_computed += 1
            yield ev

    @property
    def tiles_damaged(self) -> int:
        """Tiles found damaged in a store (recorded as written, but bytes that do not decode
        or match their sha256): they are computed again."""
        return len(set().union(*(t.damaged for t in self.targets.values())))

    def skipped_pairs(self, ev: TileEvent) -> int:
        return self.grid.pairs(*ev.tile) if ev.skipped else 0

    def matrix(self, kind: str) -> np.ndarray:
        """The whole matrix of ``kind`` (read from its store or memory)."""
        return self.targets[kind].read()


def compute_gram(a, b, arch: Architecture, kinds=("ntk",), tile: int = 256, stores=None,
                 client=None) -> dict[str, np.ndarray]:
    """``{kind: matrix}`` of :class:`GramRun` (all tiles computed, or loaded from the stores)."""
    run = GramRun(a, b, arch, kinds, tile, stores)
    for _ in run.events(client):
        pass
    return {k: run.matrix(k) for k in run.kinds}


def client_cores(client) -> int:
    """Threads of all workers of a Dask client (the cores it computes on)."""
    return max(1, sum(client.nthreads().values()))


@contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None, processes: bool = True,
                timeout: float = CONNECT_TIMEOUT_S):
    """A ``distributed.Client``: to a new local cluster of ``workers`` single-threaded
    workers (processes unless ``processes=False``), started and stopped here; to the
    existing scheduler at ``scheduler``; or None (in-process engine) when both are None.

    An unreachable scheduler raises ``ValueError`` after ``timeout`` seconds.
    """
    if workers is None and scheduler is None:
        yield None
        return
    if workers is not None and scheduler is not None:
        raise ValueError("give either --workers or --scheduler, not both")
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ValueError(f"--scheduler {scheduler}: no Dask scheduler reachable within "
                             f"{timeout:g} s ({msg[:120]})") from None
        try:
            yield client
        finally:
            client.close()
        return
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ValueError(f"--workers must be an integer in [1, 256], got {workers!r}")
    import dask.config

    # the workers' statistical profiler samples every 10 ms: CPU taken from the kernels
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                               dashboard_address=":0", silence_logs=logging.ERROR)  # ":0": any free port
    try:
        client = Client(cluster, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def pairs_per_second_per_core(pairs: int, seconds: float, cores: int) -> float:
    return pairs / seconds / cores if seconds > 0 and cores > 0 else math.nan
