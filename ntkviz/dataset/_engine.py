"""Computing Gram tiles: the conv-kernel tile function and its two engines.

* :func:`conv_tile` -- the exact CKN and NTK values of one tile (rows x cols images)
  from **one pass** of the convolutional engine (:mod:`ntkviz.core.conv`
  computes ``K_CKN`` and ``K_NTK`` together: the NTK recursion carries the
  CKN one). A diagonal tile of a symmetric matrix evaluates only its pairs
  ``i <= j`` and mirrors them, so the matrix is exactly symmetric. The tile
  function is pure: the same inputs give the same bits, whichever engine or
  worker runs it, so a retried tile equals the first attempt.
* :func:`run_tiles` -- every tile of a :class:`TileGrid` not yet done in the
  targets, either in this process (tiles one after the other, each over
  numba's threads: one ``parallel=True`` kernel at a time, guarded by a
  process-wide lock) or on a Dask distributed cluster (one task per tile, a
  bounded number in flight; results are written by this process only, so a
  store has a single writer). A worker lost mid-tile has its task rerun by
  Dask (pure tasks: the retry gives the same values).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ntkviz.core.conv.architecture import Architecture, architecture_from_dict, architecture_to_dict
from ntkviz.core.conv.gram import kernel_tile_iter, scale_back
from ntkviz.dataset._store import TileGrid

__all__ = ["conv_tile", "conv_tile_iter", "run_tiles", "TileEvent", "KINDS"]

#: the kernels one pass of the conv engine gives
KINDS = ("ckn", "ntk")
#: only one ``parallel=True`` numba kernel may run per process at a time
PARALLEL_LOCK = threading.Lock()
#: pairs per parallel call inside a tile (progress and cancel granularity in-process)
CHUNK_PAIRS = 2048


@dataclass(frozen=True)
class TileEvent:
    """Progress of :func:`run_tiles`: ``pairs`` more kernel pairs evaluated; ``tile`` is
    ``(i, j)`` when that tile has just been written (``skipped`` if it was already done)."""

    pairs: int
    tile: tuple[int, int] | None = None
    skipped: bool = False


def conv_tile_iter(rows: np.ndarray, cols: np.ndarray | None, arch: Architecture,
                   chunk: int = CHUNK_PAIRS) -> Iterator[int | tuple[np.ndarray, np.ndarray]]:
    """Generator form of :func:`conv_tile`: yields the number of pairs of each finished
    chunk, then ``(K_ckn, K_ntk)``. ``cols=None``: the symmetric tile of ``rows`` with itself.

    ``K_ntk`` is NaN for architectures without an NTK (an ``exp`` layer). The work is
    :func:`ntkviz.core.conv.gram.kernel_tile_iter`, one parallel call at a time in this process.
    """
    for step in kernel_tile_iter(rows, cols, arch, chunk_pairs=chunk, guard=PARALLEL_LOCK):
        if step.blocks is not None:
            yield step.blocks
        elif step.pairs:
            yield step.pairs


def conv_tile(rows: np.ndarray, cols: np.ndarray | None, arch: Architecture) -> tuple[np.ndarray, np.ndarray]:
    """``(K_ckn, K_ntk)`` of the tile ``rows x cols`` (float64 images, same shape)."""
    item = None
    for item in conv_tile_iter(rows, cols, arch):
        pass
    return item


def _dask_tile(rows: np.ndarray, cols: np.ndarray | None, arch_dict: dict) -> tuple[np.ndarray, np.ndarray]:
    """The Dask task: :func:`conv_tile` with numba limited to the worker's own thread count
    (so N worker processes on N cores never oversubscribe them)."""
    import numba

    try:
        from distributed import get_worker

        threads = int(get_worker().state.nthreads)
    except Exception:  # noqa: BLE001 - not in a worker, or an older distributed
        threads = numba.get_num_threads()
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    return conv_tile(rows, cols, architecture_from_dict(arch_dict))


def _pending(grid: TileGrid, targets: dict) -> Iterator[TileEvent | tuple[int, int]]:
    for i, j in grid.tiles():
        if all([t.done(i, j) for t in targets.values()]):  # every target checked: damage is counted
            yield TileEvent(0, (i, j), skipped=True)
        else:
            yield (i, j)


def _write(targets: dict, i: int, j: int, blocks: tuple[np.ndarray, np.ndarray], scale: float) -> None:
    for kind, target in targets.items():
        block = blocks[KINDS.index(kind)]
        target.write(i, j, block if scale == 1.0 else scale_back(block, scale))


def _inputs(grid: TileGrid, a: np.ndarray, b: np.ndarray | None, i: int, j: int):
    rows = a[grid.rows(i)]
    if grid.symmetric:
        return rows, (None if i == j else a[grid.cols(j)])
    return rows, b[grid.cols(j)]


def run_tiles(a: np.ndarray, b: np.ndarray | None, arch: Architecture, grid: TileGrid, targets: dict,
              client=None, scale: float = 1.0) -> Iterator[TileEvent]:
    """Compute every tile of ``grid`` not already done in all ``targets`` and write it.

    Every value is multiplied by ``scale²`` before it is written (images divided by
    ``scale``, a power of two: :func:`ntkviz.core.conv.gram.scale_back`). ``targets`` maps ``"ckn"``/``"ntk"`` to a :class:`~ntkviz.dataset._store.GramStore`
    or :class:`~ntkviz.dataset._store.MemoryTarget`; both kernels come from the same
    tile pass. ``b`` is None for the symmetric matrix of ``a``. ``client``: a
    ``distributed.Client`` (None: in this process). Yields :class:`TileEvent` s;
    closing the generator stops after the current chunk (in-process) or cancels
    the tasks in flight (Dask); written tiles stay.
    """
    if client is None:
        for item in _pending(grid, targets):
            if isinstance(item, TileEvent):
                yield item
                continue
            i, j = item
            blocks = None
            for step in conv_tile_iter(*_inputs(grid, a, b, i, j), arch):
                if isinstance(step, tuple):
                    blocks = step
                else:
                    yield TileEvent(int(step))
            _write(targets, i, j, blocks, scale)
            yield TileEvent(0, (i, j))
        return
    yield from _run_dask(a, b, arch, grid, targets, client, scale)


def _run_dask(a, b, arch, grid, targets, client, scale) -> Iterator[TileEvent]:
    from distributed import as_completed

    arch_dict = architecture_to_dict(arch)
    window = max(4, 2 * sum(client.nthreads().values()))
    todo = _pending(grid, targets)
    futures = {}
    done = as_completed(loop=client.loop)

    def submit_next() -> list[TileEvent]:
        skipped = []
        for item in todo:
            if isinstance(item, TileEvent):
                skipped.append(item)
                continue
            i, j = item
            rows, cols = _inputs(grid, a, b, i, j)
            fut = client.submit(_dask_tile, rows, cols, arch_dict, pure=True,
                                key=f"ntkviz-tile-{i}-{j}-{id(grid):x}")
            futures[fut.key] = (fut, (i, j))
            done.add(fut)
            break
        return skipped

    try:
        exhausted = False
        while not exhausted and len(futures) < window:
            before = len(futures)
            yield from submit_next()
            exhausted = len(futures) == before
        for fut in done:
            _, (i, j) = futures.pop(fut.key)
            blocks = fut.result()
            fut.release()
            _write(targets, i, j, blocks, scale)
            yield TileEvent(grid.pairs(i, j), (i, j))
            while not exhausted and len(futures) < window:
                before = len(futures)
                yield from submit_next()
                exhausted = len(futures) == before
    finally:
        if futures:  # closed early (cancel, Ctrl+C, an error): drop the tasks in flight
            client.cancel([f for f, _ in futures.values()])
