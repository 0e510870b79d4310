"""The request protocol: what the app's dispatcher, the command line and the tests run.

A *request* is a frozen, validated snapshot of every parameter a computation needs.
Calling it returns its *response* (immutable). A long request also offers
``iterate()``, a generator of :class:`Progress` items that can be stopped between
items (cancellation) and that **returns** the response; its ``__call__`` is
``run_to_end(self.iterate())``. Two class attributes tell the app how to run it:
``heavy`` (on the one-thread pool: ``parallel=True`` numba kernels, long jobs) and
``iterated`` (run ``iterate()``: progress bar, partial results, Cancel).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar, Generator, Iterator, Protocol, TypeVar, runtime_checkable

__all__ = ["Progress", "Request", "LongRequest", "run_to_end"]

R = TypeVar("R", covariant=True)


@dataclass(frozen=True)
class Progress:
    """One step of a long request.

    ``fraction`` done, in [0, 1]; ``message`` says what was just done (for a progress
    line); ``partial`` is a partial response of the same kind as the final one (e.g. the
    amplitudes of a sweep done so far), drawn while the job runs, or ``None``."""

    fraction: float
    message: str = ""
    partial: object = None


@runtime_checkable
class Request(Protocol[R]):
    """A frozen request: ``request()`` computes its response."""

    #: run on the one-thread pool (``parallel=True`` numba kernels, long jobs)
    heavy: ClassVar[bool]
    #: the app runs :meth:`LongRequest.iterate` (progress, partial results, Cancel)
    iterated: ClassVar[bool]

    def __call__(self) -> R: ...


@runtime_checkable
class LongRequest(Request[R], Protocol[R]):
    """A request that reports progress: ``iterate()`` yields :class:`Progress` items and
    returns the response (stop iterating to cancel)."""

    def iterate(self) -> Generator[Progress, None, R]: ...


def run_to_end(items: Iterator, on_item: Callable[[object], None] | None = None):
    """Exhaust the generator ``items`` (a request's ``iterate()``), calling ``on_item`` on
    each item, and return the generator's return value (the response)."""
    while True:
        try:
            item = next(items)
        except StopIteration as stop:
            return stop.value
        if on_item is not None:
            on_item(item)
