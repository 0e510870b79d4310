"""Benchmarks: ``python -m ntkviz.bench [AREA ...] [--repeats N]``.

Each area lives in ``ntkviz/bench/_<area>.py`` and exposes
``run(repeats: int) -> list[Result]``. Timings are medians over repeats, after
warm-up (numba compiled or loaded from cache), on whatever machine runs them;
the report names the machine.
"""
from __future__ import annotations

import platform
import statistics
import time
from dataclasses import dataclass
from typing import Callable

AREAS = ("kernels", "spectra", "conv", "deform", "training", "scale", "learning", "scattering", "gui")


@dataclass(frozen=True)
class Result:
    """One benchmark line: ``median`` and ``target`` in seconds (target None = report only)."""

    name: str
    median: float
    target: float | None = None
    note: str = ""
    unit: str = "s"

    def line(self) -> str:
        def fmt(v):
            if self.unit != "s":
                return f"{v:.4g} {self.unit}"
            return f"{v * 1e3:9.3f} ms" if v < 10 else f"{v:9.2f} s "
        status = ""
        if self.target is not None:
            ok = self.median <= self.target if self.unit == "s" else self.median >= self.target
            status = f"  target {'<=' if self.unit == 's' else '>='} {fmt(self.target).strip()}  " + (
                "OK" if ok else "MISSED")
        return f"{self.name:<58s} {fmt(self.median)}{status}  {self.note}".rstrip()


def median_time(fn: Callable[[], object], repeats: int = 7, warmup: int = 1,
                clock: Callable[[], float] = time.perf_counter) -> float:
    """Median time of ``fn()`` over ``repeats`` calls after ``warmup`` calls, read on ``clock``."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def median_cpu_time(fn: Callable[[], object], repeats: int = 7, warmup: int = 1) -> float:
    """Median *thread CPU* time of ``fn()``: insensitive to other processes on a shared machine
    (meaningful for single-threaded work only)."""
    return median_time(fn, repeats, warmup, clock=time.thread_time)


def machine() -> str:
    """A one-line description of this machine."""
    import os

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"
