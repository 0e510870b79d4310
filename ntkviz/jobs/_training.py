"""Lazy-training job: :class:`TrainRequest` -> :class:`TrainResponse` (Qt-free).

One request runs one or two trainings (``compare_alpha``: side by side, same teacher,
data, initialisation and step size, another output scale α) with
:func:`ntkviz.core.training.dynamics.train_frames`. :meth:`TrainRequest.iterate` is the
generator the app runs: every item is a :class:`~ntkviz.jobs.Progress` whose ``partial``
is the cumulative :class:`TrainResponse` (all frames so far), so a consumer only keeps
the latest one; stopping the iteration cancels the run between chunks; it returns the
final response. Calling the request runs to the end (CLI, tests).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Generator

from ntkviz import limits
from ntkviz._check import check_float
from ntkviz.core.training.dynamics import (METRICS, TrainConfig, TrainResult, make_setup,
                                           tau_from_alpha, train_frames)
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["TrainRequest", "TrainResponse", "TRAIN_VIEWS", "PAPER_CONFIG"]

#: exportable tables / views of the training panel
TRAIN_VIEWS = ("neurons", "predictor", "metrics")


#: the paper's Fig. 1 set-up (d = 2, n = 15, m = 20, m0 = 3) at the non-lazy α = 0.01 (τ = 0.1)
PAPER_CONFIG = TrainConfig(alpha=0.01, width=20, samples=15, teacher=3, lr=0.005, steps=10000)


@dataclass(frozen=True)
class TrainRequest:
    """A run ``config`` and, with ``compare_alpha``, a second run at that α side by side
    (same teacher, data, initialisation and step size). The default compares the
    paper's non-lazy α = 0.01 (τ = 0.1) with lazy α = 100 (τ = 10)."""

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    config: TrainConfig = PAPER_CONFIG
    compare_alpha: float | None = 100.0

    def __post_init__(self):
        if not isinstance(self.config, TrainConfig):  # valid by construction: not checked again
            raise ValueError(f"config must be a TrainConfig, got {type(self.config).__name__}")
        if self.compare_alpha is not None:
            object.__setattr__(self, "compare_alpha",
                               check_float("compare_alpha", self.compare_alpha, limits.ALPHA_RANGE))

    def configs(self) -> tuple[TrainConfig, ...]:
        """The run configurations (one, or two with ``compare_alpha``)."""
        if self.compare_alpha is None:
            return (self.config,)
        return self.config, replace(self.config, alpha=self.compare_alpha)

    def iterate(self) -> Generator[Progress, None, "TrainResponse"]:
        """Train every run in lock-step, yielding the cumulative response (``partial``)
        after each frame; returns the final response."""
        from ntkviz.core.training.laziness import laziness

        configs = self.configs()
        setup = make_setup(configs[0])  # shared draws: only α differs between the runs
        parts = laziness(setup)
        kappas = tuple(parts.kappa(cfg.alpha) for cfg in configs)
        gens = [train_frames(cfg, setup) for cfg in configs]
        frames: list[list] = [[] for _ in configs]
        status = [dict(done=False, diverged=False, message="", fraction=0.0) for _ in configs]
        response = self._response(configs, setup, frames, status, kappas)
        try:
            while not all(s["done"] for s in status):
                for k, gen in enumerate(gens):
                    if status[k]["done"]:
                        continue
                    item = next(gen, None)
                    if item is None:
                        status[k]["done"] = True
                        continue
                    if item.frame is not None:
                        frames[k].append(item.frame)
                    status[k].update(done=item.done, diverged=item.diverged,
                                     message=item.message, fraction=item.fraction)
                response = self._response(configs, setup, frames, status, kappas)
                if not response.done:
                    yield Progress(response.fraction, "", response)
        finally:
            for gen in gens:
                gen.close()
        return response

    def _response(self, configs, setup, frames, status, kappas) -> "TrainResponse":
        runs = tuple(
            TrainResult(setup=replace(setup, config=cfg) if cfg != setup.config else setup,
                        frames=tuple(f), diverged=s["diverged"], message=s["message"])
            for cfg, f, s in zip(configs, frames, status))
        return TrainResponse(request=self, runs=runs, done=all(s["done"] for s in status),
                             fraction=min(s["fraction"] if not s["done"] else 1.0 for s in status),
                             kappa_alpha=kappas)

    def __call__(self) -> "TrainResponse":
        return run_to_end(self.iterate())


@dataclass(frozen=True, eq=False)
class TrainResponse:
    """Runs so far (``done`` once every run finished or stopped).

    ``kappa_alpha``: the laziness κ_α = (1/α)‖αh(w₀) − y‖ ‖D²h(w₀)‖/‖Dh(w₀)‖² of each run at
    initialisation (:mod:`ntkviz.core.training.laziness`; None where it is not reported, when
    only the first layer trains).
    """

    request: TrainRequest
    runs: tuple
    done: bool = True
    fraction: float = 1.0
    kappa_alpha: tuple = ()

    @property
    def frame_count(self) -> int:
        """Frames available in every run's timeline (the longest run; shorter runs hold
        their last frame)."""
        return max((len(r.frames) for r in self.runs), default=0)

    @property
    def diverged(self) -> bool:
        return any(r.diverged for r in self.runs)

    @property
    def message(self) -> str:
        return " ".join(f"α = {r.setup.config.alpha:g}: {r.message}" for r in self.runs if r.message)

    def frame(self, run: int, index: int):
        """Frame ``index`` of run ``run`` (clamped to the frames it has; None if none)."""
        frames = self.runs[run].frames
        if not frames:
            return None
        return frames[max(0, min(index if index >= 0 else len(frames) + index, len(frames) - 1))]

    def csv_table(self, view: str = "metrics", index: int = -1) -> tuple[list[str], list[list]]:
        """``(header, rows)`` of ``view``: "metrics" (every frame), or "neurons" /
        "predictor" at frame ``index`` (default: the last), for every run. The panel's
        view names are accepted too: "figure" is the metrics table, "<view>_2" the same
        table as "<view>" (it holds every run)."""
        view = "metrics" if view == "figure" else view.removesuffix("_2")
        if view not in TRAIN_VIEWS:
            raise ValueError(f"view must be one of {', '.join(TRAIN_VIEWS)}; got {view!r}")
        rows: list[list] = []
        if view == "metrics":
            header = ["alpha", "tau", "step", "time", *METRICS]
            for r in self.runs:
                a = r.setup.config.alpha
                rows += [[a, tau_from_alpha(a), f.step, f.time, *(f.metrics[k] for k in METRICS)]
                         for f in r.frames]
            return header, rows
        if view == "neurons":
            header = ["alpha", "step", "neuron", "sign_a", "p1", "p2"]
            for k, r in enumerate(self.runs):
                f = self.frame(k, index)
                if f is not None:
                    rows += [[r.setup.config.alpha, f.step, j, float(f.signs[j]),
                              float(f.neurons[j, 0]), float(f.neurons[j, 1])]
                             for j in range(len(f.signs))]
            return header, rows
        header = ["alpha", "step", "theta", "target", "net", "linearised", "kernel_K0",
                  "kernel_ntk"]
        for k, r in enumerate(self.runs):
            f = self.frame(k, index)
            if f is None:
                continue
            s = r.setup
            rows += [[s.config.alpha, f.step, float(th), float(y), float(a), float(b), float(c),
                      float(d)]
                     for th, y, a, b, c, d in zip(s.grid_angles, s.y_grid, f.net, f.linear,
                                                  f.kernel, f.ntk)]
        return header, rows

