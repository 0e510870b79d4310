"""A CKN/NTK Gram (or cross) matrix over tiles: targets, engines, Dask clients."""
from __future__ import annotations

import logging
import math
from contextlib import contextmanager
from typing import Iterator

import numpy as np

from ntkviz import limits
from ntkviz._check import check_int
from ntkviz.core.conv.architecture import Architecture, architecture_to_dict, check_architecture
from ntkviz.dataset._engine import KINDS, TileEvent, run_tiles
from ntkviz.dataset._load import images_hash
from ntkviz.dataset._store import MemoryTarget, StoreMeta, TileGrid, open_store

__all__ = ["GramRun", "compute_gram", "dask_client", "check_scheduler", "gram_meta", "CONNECT_TIMEOUT_S",
           "MAX_TILE"]

#: seconds to wait for an existing Dask scheduler before giving up
CONNECT_TIMEOUT_S = 5.0
#: largest tile side (a tile's two float64 blocks stay well below 100 MiB)
MAX_TILE = limits.GRAM_TILE_RANGE[1]


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
    check_int("tile size", tile, limits.GRAM_TILE_RANGE)
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
    """The power of two the conv engine divides huge or small images by (1.0 for images
    whose largest pixel is in [1, 2^64]): both kernels are homogeneous of degree 2, so
    ``K(x, y) = c^2 K(x / c, y / c)`` exactly (:func:`ntkviz.core.conv.gram.homogeneous_rescale`).
    One factor for the whole matrix, as :func:`ntkviz.core.conv.gram.gram_iter` does."""
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
        arch = check_architecture(arch)
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
        for ev in run_tiles(a, b, self.arch, self.grid, self.targets, client, c):
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

    A ``scheduler`` address is checked first (:func:`check_scheduler`): an unreachable
    address, or one where something other than a Dask scheduler listens, raises
    ``ValueError`` within ``timeout`` seconds and no client is made. The local cluster is
    started with SIGINT blocked in this thread, so its threads and worker processes inherit
    the block: a Ctrl+C (which a terminal sends to the whole process group) interrupts this
    process only, which then stops the cluster (no traceback of a worker).
    """
    if workers is None and scheduler is None:
        yield None
        return
    if workers is not None and scheduler is not None:
        raise ValueError("give either --workers or --scheduler, not both")
    from distributed import Client, LocalCluster

    if scheduler is not None:
        check_scheduler(scheduler, timeout)
        try:
            client = Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ValueError(f"--scheduler {scheduler}: no Dask scheduler reachable within "
                             f"{timeout:g} s ({_first_line(exc)})") from None
        try:
            yield client
        finally:
            client.close()
        return
    check_int("--workers", workers, limits.DASK_WORKERS_RANGE)
    import dask.config

    cluster = client = None
    try:
        # the workers' statistical profiler samples every 10 ms: CPU taken from the kernels
        with dask.config.set({"distributed.worker.profile.enabled": False}), _sigint_blocked():
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                   dashboard_address=":0", silence_logs=logging.ERROR)  # ":0": any free port
            client = Client(cluster, set_as_default=False)
        yield client  # a Ctrl+C pressed during the start arrives here, once the block is lifted
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


@contextmanager
def _sigint_blocked():
    """Block SIGINT in the calling (main) thread; threads and processes started meanwhile
    inherit the blocked signal mask for good. A SIGINT arriving meanwhile stays pending and
    is delivered (``KeyboardInterrupt``) when the block is lifted on exit.

    multiprocessing's resource tracker is started first: starting it *unblocks* SIGINT in
    the thread that starts it (it blocks the signal around its own spawn), which inside
    the block would hand the default mask to every process Dask starts from that thread."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _first_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]


#: where the scheduler listens unless told otherwise (its dashboard: 8787, HTTP)
_HINT = "the scheduler's address is tcp://HOST:PORT, port 8786 unless set otherwise; 8787 is its dashboard"


def check_scheduler(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Check that a Dask scheduler answers at ``address`` within ``timeout`` seconds in all,
    else raise ``ValueError("--scheduler ADDRESS: ...")`` (one line):

    1. the address must name a scheme Dask knows, a host and a port (``bogus``, ``""`` and
       ``http://...`` are refused at once: "not a Dask scheduler address");
    2. a TCP connection to that host and port must open ("no Dask scheduler reachable");
    3. over Dask's own protocol (``distributed.comm.connect``: handshake, then the
       ``identity`` request every Dask server answers) a reply of type ``Scheduler`` must
       arrive in the remaining time. Anything else -- a service that does not speak the
       protocol (an HTTP server such as the dashboard), sends garbage (Dask would read a
       frame length of exabytes), stays silent, or a Dask worker -- is "not a Dask scheduler".
    """
    import asyncio
    import socket
    import threading
    import time

    from distributed.comm.addressing import get_address_host_port, parse_address
    from distributed.comm.registry import get_backend

    where = f"--scheduler {address or repr(address)}"
    scheme, _ = parse_address(address)
    try:
        get_backend(scheme)
    except ValueError:
        raise ValueError(f"{where}: not a Dask scheduler address ({scheme}:// is not a Dask protocol); "
                         f"{_HINT}") from None
    try:
        host, port = get_address_host_port(address)
    except ValueError as exc:
        raise ValueError(f"{where}: not a Dask scheduler address ({_first_line(exc)}); {_HINT}") from None
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or _first_line(exc) if not isinstance(exc, socket.timeout) else "no answer"
        raise ValueError(f"{where}: no Dask scheduler reachable within {timeout:g} s ({reason})") from None

    outcome: dict = {}

    def ask() -> None:  # a fresh event loop on its own thread: works whatever the caller runs
        async def identity():
            from distributed.comm import connect
            from distributed.security import Security

            comm = await connect(address, timeout=max(0.1, deadline - time.monotonic()),
                                 **Security().get_connection_args("client"))
            try:
                await comm.write({"op": "identity", "reply": True})
                return await comm.read()
            finally:
                comm.abort()

        try:
            outcome["reply"] = asyncio.run(asyncio.wait_for(identity(), max(0.1, deadline - time.monotonic())))
        except BaseException as exc:  # noqa: BLE001 - MemoryError, protocol errors, timeouts: all mean "not Dask"
            outcome["error"] = exc

    thread = threading.Thread(target=ask, name="ntkviz-scheduler-check", daemon=True)
    thread.start()
    thread.join(max(0.1, deadline - time.monotonic()) + 1.0)
    reply = outcome.get("reply")
    kind = reply.get("type") if isinstance(reply, dict) else None
    if kind == "Scheduler":
        return
    if kind is not None:
        why = f"a Dask {kind} answers there, not the scheduler"
    elif isinstance(outcome.get("error"), (asyncio.TimeoutError, TimeoutError)) or not outcome:
        why = f"no answer in the Dask protocol within {timeout:g} s"
    else:
        why = "the service there does not speak the Dask protocol"
    raise ValueError(f"{where}: not a Dask scheduler ({why}; {_HINT})")


def pairs_per_second_per_core(pairs: int, seconds: float, cores: int) -> float:
    return pairs / seconds / cores if seconds > 0 and cores > 0 else math.nan
