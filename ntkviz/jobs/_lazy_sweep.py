"""Lazy ↔ rich sweep job: :class:`LazySweepRequest` -> :class:`LazySweepResponse` (Qt-free).

One training run per (width m, output scale α, seed) with
:func:`ntkviz.core.training.sweep.measure`; the draws, kernels and κ_α's parts of a
(width, seed) are computed once and shared by every α. :meth:`LazySweepRequest.iterate` is
a generator: it yields a :class:`~ntkviz.jobs.Progress` whose ``partial`` is the cumulative
response after each (α, seed) run (and
between chunks of a long run, so stopping the iteration cancels within
``PROGRESS_STEPS`` gradient steps) and *returns* the final response; calling the request
runs it to the end.

:class:`LazySweepSetRequest` -> :class:`LazySweepSetResponse` runs one such sweep per output
scaling of the width, one after the other (the width view compares the NTK and the mean-field
scaling); the app and ``ntkviz lazy-sweep`` run it (with one scaling it is one sweep).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar, Generator

import numpy as np

from ntkviz._check import check_choice, check_float, check_int
from ntkviz.limits import (ALPHA_RANGE, INITS, LAZY_SEEDS_RANGE, RIDGE_RANGE, TRAIN_LAYERS as LAYERS,
                           TRAIN_NOISE_RANGE as NOISE_RANGE, TRAIN_WIDTH_RANGE)
from ntkviz.core.training.sweep import (DEFAULT_ALPHAS, GAP_THRESHOLD, SCALINGS, SWEEP_METRICS,
                                        Crossover, crossover, sweep_config)
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["LazySweepRequest", "LazySweepResponse", "LazySweepSetRequest", "LazySweepSetResponse",
           "SWEEP_CSV_HEADER"]

#: the CSV columns: one row per (alpha, width)
SWEEP_CSV_HEADER = ("alpha", "width", "scaling", "train", *SWEEP_METRICS,
                    *(f"{k}_sem" for k in SWEEP_METRICS), "runs", "samples", "ridge", "alpha_star")


def _sorted_distinct(name: str, values, check) -> tuple:
    """``values`` checked one by one with ``check(name, value)``, distinct, sorted."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a sequence of numbers, got {values!r}")
    out = tuple(check(name, v) for v in values)
    if not out:
        raise ValueError(f"{name} needs at least one value")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} lists a value twice: {', '.join(f'{v:g}' for v in out)}")
    return tuple(sorted(out))


@dataclass(frozen=True)
class LazySweepRequest:
    """A sweep over ``alphas`` (output scales α) × ``widths`` (m) × ``seeds`` runs.

    Attributes
    ----------
    alphas : distinct α in [1e-4, 1e6] (sorted here); default 10⁻² … 10⁴, two per decade.
    widths : distinct widths m in [2, 65536] (even with the symmetrised initialisation).
    scaling : ``"ntk"`` (output × 1/√m), ``"meanfield"`` (× 1/m, steps ``lr``·m) or ``"none"``
        (× 1, the paper's set-up), see :mod:`ntkviz.core.training.sweep`.
    layers : trained layers, ``"all"``, ``"last"`` (random features) or ``"first"``.
    dim, samples, teacher : input dimension d, training inputs n, teacher neurons m₀.
    noise : σ of the label noise on the training targets, in [0, 1000].
    ridge : with ``layers="last"``, solve the last layer in closed form with this ridge δ in
        [0, 1e6] instead of gradient descent (None: gradient descent).
    lr, steps : step size and number of steps: every run stops at t = ``lr``·``steps``.
    seeds : runs per point, seeds ``seed``, ``seed`` + 1, …; each draws its own teacher, data
        and initialisation (the same for every α and width).
    init : ``"symmetric"`` or ``"centered"``; None picks ``"centered"`` for the last layer
        alone (m independent random features; the symmetric pairs would duplicate each
        feature and move the interpolation threshold to m = 2n) and ``"symmetric"`` otherwise.
    gap : relative gap of the test losses that defines the crossover α*, in (0, 10].
    """

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    alphas: tuple = DEFAULT_ALPHAS
    widths: tuple = (20,)
    scaling: str = "ntk"
    layers: str = "all"
    dim: int = 2
    samples: int = 15
    teacher: int = 3
    noise: float = 0.0
    ridge: float | None = None
    lr: float = 0.005
    steps: int = 10000
    seeds: int = 3
    seed: int = 0
    init: str | None = None
    gap: float = GAP_THRESHOLD

    def __post_init__(self):
        put = object.__setattr__
        put(self, "alphas", _sorted_distinct("alphas", self.alphas,
                                             lambda n, v: check_float(n, v, ALPHA_RANGE)))
        put(self, "widths", _sorted_distinct("widths", self.widths,
                                             lambda n, v: check_int(n, v, TRAIN_WIDTH_RANGE)))
        put(self, "scaling", check_choice("scaling", self.scaling, SCALINGS))
        put(self, "layers", check_choice("layers", self.layers, LAYERS))
        put(self, "seeds", check_int("seeds", self.seeds, LAZY_SEEDS_RANGE))
        put(self, "seed", check_int("seed", self.seed, (0, 2**32 - self.seeds)))
        put(self, "noise", check_float("noise", self.noise, NOISE_RANGE))
        put(self, "gap", check_float("gap", self.gap, (0.0, 10.0)))
        if self.gap <= 0.0:
            raise ValueError(f"gap must be in (0, 10], got {self.gap!r}")
        if self.init is not None:
            put(self, "init", check_choice("init", self.init, INITS))
        if self.ridge is not None:
            if self.layers != "last":
                raise ValueError(f"ridge applies to the last layer trained alone (layers='last'), "
                                 f"got layers={self.layers!r}")
            put(self, "ridge", check_float("ridge", self.ridge, RIDGE_RANGE))
        odd = [m for m in self.widths if m % 2]
        if odd and self.resolved_init == "symmetric":
            raise ValueError(f"widths must be even with the symmetric initialisation (neurons in "
                             f"pairs), got {odd[0]}; or use the centered initialisation")
        for m in self.widths:  # every other field, and each width, through TrainConfig's checks
            self.config(self.alphas[0], m, 0)

    @property
    def resolved_init(self) -> str:
        """The initialisation used (``init``, or the choice made for ``layers`` when None)."""
        if self.init is not None:
            return self.init
        return "centered" if self.layers == "last" else "symmetric"

    def config(self, alpha: float, width: int, k: int):
        """The validated :class:`TrainConfig` of run ``k`` (seed ``seed + k``) at (α, m)."""
        return sweep_config(alpha, width, self.seed + k, scaling=self.scaling, layers=self.layers,
                            init=self.resolved_init, dim=self.dim, samples=self.samples,
                            teacher=self.teacher, noise=self.noise, lr=self.lr, steps=self.steps)

    @property
    def run_count(self) -> int:
        return len(self.alphas) * len(self.widths) * self.seeds

    def iterate(self) -> Generator[Progress, None, "LazySweepResponse"]:
        """Run every (width, α, seed), widths outermost, then α, then seeds; yield the cumulative
        response after each run and between chunks of a run; return the final response."""
        from ntkviz.core.training.sweep import measure, prepare

        shape = (len(SWEEP_METRICS), len(self.widths), len(self.alphas), self.seeds)
        values = np.full(shape, np.nan)
        status = np.zeros(shape[1:], dtype=np.int8)  # 0 pending, 1 finished, 2 diverged
        messages: list[str] = []
        total = self.run_count
        done = 0
        for iw, width in enumerate(self.widths):
            prepared: dict[int, object] = {}
            for ia, alpha in enumerate(self.alphas):
                for k in range(self.seeds):
                    cfg = self.config(alpha, width, k)
                    if k not in prepared:
                        prepared[k] = prepare(cfg, self.ridge)
                    run = measure(cfg, prepared[k])
                    while True:
                        try:
                            part = next(run)
                        except StopIteration as stop:
                            point = stop.value
                            break
                        fraction = (done + part) / total
                        yield Progress(fraction, "", self._response(values, status, messages, fraction))
                    done += 1
                    if point.diverged:
                        status[iw, ia, k] = 2
                        messages.append(f"α = {alpha:g}, m = {width}, seed {self.seed + k}: "
                                        f"{point.message}")
                    else:
                        status[iw, ia, k] = 1
                        values[:, iw, ia, k] = [point.metrics[name] for name in SWEEP_METRICS]
                    yield Progress(done / total, "", self._response(values, status, messages, done / total))
        return self._response(values, status, messages, 1.0, done=True)

    def pending(self) -> "LazySweepResponse":
        """The response of this sweep before any run finished (every value NaN)."""
        shape = (len(SWEEP_METRICS), len(self.widths), len(self.alphas), self.seeds)
        return self._response(np.full(shape, np.nan), np.zeros(shape[1:], dtype=np.int8), [], 0.0)

    def _response(self, values, status, messages, fraction, done=False) -> "LazySweepResponse":
        v, st = values.copy(), status.copy()
        v.setflags(write=False)
        st.setflags(write=False)
        return LazySweepResponse(request=self, values=v, status=st, messages=tuple(messages),
                                 done=done, fraction=min(max(fraction, 0.0), 1.0))

    def __call__(self) -> "LazySweepResponse":
        return run_to_end(self.iterate())


@dataclass(frozen=True, eq=False)
class LazySweepResponse:
    """The runs so far of a :class:`LazySweepRequest`.

    ``values`` (metric, width, α, seed): the :data:`SWEEP_METRICS` of each run, in that order
    (NaN: not run yet, diverged, or not applicable); ``status`` (width, α, seed): 0 pending,
    1 finished, 2 diverged; ``messages``: one line per diverged run.
    """

    request: LazySweepRequest
    values: np.ndarray
    status: np.ndarray
    messages: tuple = ()
    done: bool = True
    fraction: float = 1.0
    _crossovers: dict = field(default_factory=dict, repr=False, compare=False)

    # -- axes
    @property
    def alphas(self) -> np.ndarray:
        return np.asarray(self.request.alphas, dtype=float)

    @property
    def taus(self) -> np.ndarray:
        """τ = √α, the equivalent initialisation scale (2-homogeneous net)."""
        return np.sqrt(self.alphas)

    @property
    def widths(self) -> np.ndarray:
        return np.asarray(self.request.widths, dtype=np.int64)

    @property
    def width_ratio(self) -> np.ndarray:
        """m/n of each width (the double-descent axis)."""
        return self.widths / self.request.samples

    # -- statistics over seeds
    def _index(self, name: str) -> int:
        try:
            return list(SWEEP_METRICS).index(name)
        except ValueError:
            raise ValueError(f"metric must be one of {', '.join(SWEEP_METRICS)}; got {name!r}") from None

    def runs(self) -> np.ndarray:
        """Finished (not diverged) runs per (width, α)."""
        return (self.status == 1).sum(axis=-1)

    def applies(self, name: str) -> bool:
        """Whether ``name`` is defined in this sweep (the linearisation is not, for the closed-form
        last layer; κ_α is not when only the first layer trains)."""
        self._index(name)
        if name == "test_loss_linear":
            return self.request.ridge is None
        if name == "kappa_alpha":
            return self.request.layers != "first"
        return True

    def mean(self, name: str) -> np.ndarray:
        """Mean over the finished seeds, (width, α); NaN where none finished or not applicable."""
        v = self.values[self._index(name)]
        count = np.isfinite(v).sum(axis=-1)
        with np.errstate(invalid="ignore"):
            total = np.where(np.isfinite(v), v, 0.0).sum(axis=-1)
            return np.where(count > 0, total / np.maximum(count, 1), np.nan)

    def sem(self, name: str) -> np.ndarray:
        """Standard error of the mean over the finished seeds, s/√k with the sample standard
        deviation s (k − 1 in the denominator); NaN with fewer than two."""
        v = self.values[self._index(name)]
        ok = np.isfinite(v)
        count = ok.sum(axis=-1)
        mean = self.mean(name)
        with np.errstate(invalid="ignore", divide="ignore"):
            dev = np.where(ok, v - mean[..., None], 0.0)
            var = (dev**2).sum(axis=-1) / (count - 1)
            return np.where(count >= 2, np.sqrt(var / count), np.nan)

    # -- read-outs
    @property
    def infinite_kernel(self) -> str:
        """Which infinite-width kernel ``test_loss_kernel`` uses."""
        from ntkviz.core.training.dynamics import INFINITE_KERNELS

        name = INFINITE_KERNELS[self.request.layers]
        how = ("kernel ridge regression, ridge δ" if self.request.ridge is not None
               else "gradient flow to time t")
        return f"(m s²/2)·{name}: {how}"

    def crossover(self, width_index: int = 0) -> Crossover:
        """α* of one width (:func:`ntkviz.core.training.sweep.crossover` on the mean test losses,
        threshold ``request.gap``)."""
        if width_index not in self._crossovers:
            if self.request.layers == "last":
                found = Crossover(math.nan, "the last layer alone is linear in its weights: the net "
                                            "is its linearisation at every α (no crossover)")
            else:
                found = crossover(self.alphas, self.mean("test_loss_net")[width_index],
                                  self.mean("test_loss_linear")[width_index], self.request.gap)
            self._crossovers[width_index] = found
        return self._crossovers[width_index]

    @property
    def notes(self) -> tuple[str, ...]:
        """What a reader of this sweep must know (method, undefined quantities, why no peak)."""
        from ntkviz.core.training.laziness import FIRST_LAYER_NOTE
        from ntkviz.core.training.random_features import CIRCLE_NOTE

        req = self.request
        out = []
        t = req.lr * req.steps
        if req.ridge is not None:
            out.append(f"last layer in closed form: min_v ‖Φv − y‖² + δ‖v‖², Φ_ij = s σ(b_j·x_i), "
                       f"δ = {req.ridge:g}; test_loss_kernel: ridge regression with (m s²/2)·κ1")
        else:
            out.append(f"gradient descent to t = lr·steps = {t:g}"
                       + (" (steps of lr·m, mean-field time)" if req.scaling == "meanfield" else ""))
        if req.layers == "last":
            out.append("last layer alone: the net is linear in its weights, κ_α = 0 and "
                       "the net equals its linearisation")
            if req.dim == 2:
                out.append(CIRCLE_NOTE)
        if req.layers == "first":
            out.append(FIRST_LAYER_NOTE)
        diverged = int((self.status == 2).sum())
        if diverged:
            out.append(f"{diverged} run(s) diverged and are left out of the means (a smaller lr "
                       f"helps the small α): " + "; ".join(self.messages[:3])
                       + (" …" if len(self.messages) > 3 else ""))
        return tuple(out)

    def csv_table(self) -> tuple[list[str], list[list]]:
        """``(header, rows)``: :data:`SWEEP_CSV_HEADER`, one row per (α, width) with at least one
        finished run (widths outermost); empty cells where a quantity is undefined."""
        req = self.request
        runs = self.runs()
        means = {k: self.mean(k) for k in SWEEP_METRICS}
        sems = {k: self.sem(k) for k in SWEEP_METRICS}
        rows = []
        for iw, width in enumerate(req.widths):
            star = self.crossover(iw).alpha
            for ia, alpha in enumerate(req.alphas):
                if runs[iw, ia] == 0:
                    continue
                rows.append([alpha, int(width), req.scaling, req.layers,
                             *(_cell(means[k][iw, ia]) for k in SWEEP_METRICS),
                             *(_cell(sems[k][iw, ia]) for k in SWEEP_METRICS),
                             int(runs[iw, ia]), req.samples,
                             "" if req.ridge is None else req.ridge, _cell(star)])
        return list(SWEEP_CSV_HEADER), rows


def _cell(value) -> object:
    value = float(value)
    return value if math.isfinite(value) else ""


@dataclass(frozen=True)
class LazySweepSetRequest:
    """Sweeps that differ only in their ``scaling``, run one after the other (``sweeps``, a
    tuple of :class:`LazySweepRequest` with distinct scalings, in the order given).

    :meth:`iterate` yields a :class:`~ntkviz.jobs.Progress` whose ``partial`` is the cumulative
    :class:`LazySweepSetResponse` (the sweeps not started yet: their :meth:`LazySweepRequest.pending`
    response) and returns the final one; :meth:`of` builds the set from scalings and the other
    fields."""

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    sweeps: tuple = (LazySweepRequest(),)

    def __post_init__(self):
        if not isinstance(self.sweeps, tuple) or not self.sweeps:
            raise ValueError(f"sweeps must be a non-empty tuple of LazySweepRequest, got {self.sweeps!r}")
        for sweep in self.sweeps:
            if not isinstance(sweep, LazySweepRequest):
                raise ValueError(f"sweeps must hold LazySweepRequest objects, got {type(sweep).__name__}")
        scalings = [s.scaling for s in self.sweeps]
        if len(set(scalings)) != len(scalings):
            raise ValueError(f"scalings list a value twice: {', '.join(scalings)}")

    @classmethod
    def of(cls, scalings, **fields) -> "LazySweepSetRequest":
        """One :class:`LazySweepRequest` per scaling of ``scalings`` (distinct, in this order),
        each with the other ``fields``."""
        if isinstance(scalings, str) or not scalings:
            raise ValueError(f"scalings must be a non-empty list of {', '.join(SCALINGS)}, "
                             f"got {scalings!r}")
        return cls(tuple(LazySweepRequest(scaling=s, **fields) for s in scalings))

    @property
    def scalings(self) -> tuple[str, ...]:
        return tuple(s.scaling for s in self.sweeps)

    @property
    def run_count(self) -> int:
        return sum(s.run_count for s in self.sweeps)

    def iterate(self) -> Generator[Progress, None, "LazySweepSetResponse"]:
        """Run the sweeps in order, yielding the cumulative response after each item of each
        sweep; return the final response."""
        responses = [s.pending() for s in self.sweeps]
        total, before = self.run_count, 0
        for k, sweep in enumerate(self.sweeps):
            items = sweep.iterate()
            try:
                while True:
                    try:
                        item = next(items)
                    except StopIteration as stop:
                        responses[k] = stop.value
                        break
                    responses[k] = item.partial
                    fraction = (before + item.fraction * sweep.run_count) / total
                    yield Progress(fraction, item.message, self._response(responses, fraction))
            finally:
                items.close()
            before += sweep.run_count
        return self._response(responses, 1.0, done=True)

    def _response(self, responses, fraction, done=False) -> "LazySweepSetResponse":
        return LazySweepSetResponse(self, tuple(responses), done, min(max(fraction, 0.0), 1.0))

    def __call__(self) -> "LazySweepSetResponse":
        return run_to_end(self.iterate())


@dataclass(frozen=True, eq=False)
class LazySweepSetResponse:
    """The sweeps so far of a :class:`LazySweepSetRequest`: ``responses`` (one
    :class:`LazySweepResponse` per sweep, in the request's order; a sweep not started yet has
    no finished run), ``done`` once every sweep finished."""

    request: LazySweepSetRequest
    responses: tuple
    done: bool = True
    fraction: float = 1.0

    @property
    def finished_runs(self) -> int:
        """Runs finished so far (diverged ones included), over every sweep."""
        return int(sum((r.status != 0).sum() for r in self.responses))

    @property
    def notes(self) -> tuple[str, ...]:
        """The notes of every sweep, each once."""
        return tuple(dict.fromkeys(n for r in self.responses for n in r.notes))

    def csv_table(self) -> tuple[list[str], list[list]]:
        """:data:`SWEEP_CSV_HEADER` and the rows of every sweep (its ``scaling`` column tells
        them apart), in the request's order."""
        rows = [row for r in self.responses for row in r.csv_table()[1]]
        return list(SWEEP_CSV_HEADER), rows
