"""Parameters of the lazy-training panel (Qt-free).

One run, or two side by side (``compare``: the same teacher, data,
initialisation and step size at a second output scale ``alpha2``), of a
two-layer ReLU network trained by gradient descent at output scale α = τ²
(Chizat, Oyallon & Bach 2019), see :mod:`ntkviz.core.training.dynamics`.
:class:`TrainingModel` turns them into a :class:`ntkviz.jobs.TrainRequest`.

Display-only fields (no new computation): ``metrics`` (curves drawn on the
metric plot), ``frame`` (the timeline frame shown: ``-1`` is the last; also the
frame an export draws) and ``autoplay`` (play a new run as its frames arrive).
Importing this module loads neither numba, scipy nor Qt.
"""
from __future__ import annotations

from dataclasses import dataclass

from ntkviz import limits
from ntkviz._check import check_bool, check_choice, check_float, check_int
from ntkviz._text import check_distinct
from ntkviz.core import METRICS, frame_steps
from ntkviz.models._base import ParamModel
from ntkviz.models._options import View, option

__all__ = ["TrainingParams", "TrainingModel", "DEFAULT_METRICS"]

#: metrics drawn by default (keys of :data:`ntkviz.core.training.dynamics.METRICS`)
DEFAULT_METRICS = ("train_loss", "test_loss", "relative_displacement", "gap", "kernel_drift",
                   "flip_share")
#: fields that select the computation: changing one may shorten the timeline
RUN_FIELDS = ("steps", "frames", "log_time")


def _metric_names(flag: str, text: str) -> tuple[str, ...]:
    names = tuple(t.strip() for t in text.split(","))
    if any(not t for t in names):
        raise ValueError(f"{flag} must be names separated by single commas, got {text!r}")
    return names


def _range(bounds) -> str:
    return "in [{}, {}]".format(*bounds)


@dataclass(frozen=True)
class TrainingParams:
    """The lazy-training panel's parameters.

    The defaults are the paper's Fig. 1 set-up (d = 2, n = 15, m = 20, m₀ = 3) at the
    non-lazy α = 0.01 (τ = 0.1) beside the lazy α = 100 (τ = 10).

    Attributes
    ----------
    alpha, alpha2 : output scales α of the run and of the second run, in [1e-4, 1e6].
    compare : train the second run (at ``alpha2``) side by side.
    width : student width m, even (symmetrised pairs), in [2, 65536].
    samples : training inputs n, in [1, 2000].
    teacher : teacher neurons m₀, in [1, 64].
    dim : input dimension d (inputs on S^{d-1}), in [2, 100].
    lr : gradient-descent step size (the same for every α), in [1e-6, 1000].
    steps : gradient steps, in [1, 10⁶].
    frames : recorded frames after the first, in [1, 2000] (log-spaced steps with
        ``log_time``, else evenly spaced; one per step when ``steps`` is smaller).
    seed : seed of the teacher, the data and the initialisation, in [0, 2³² − 1].
    init : ``"symmetric"`` (paired neurons, f(w₀) = 0) or ``"centered"``.
    ntk_scaling : multiply the student by 1/√m.
    metrics : metric curves drawn (display only), among :data:`METRICS`.
    frame : timeline frame shown, in [-1, frame count − 1] (-1: the last; display only).
    autoplay : play a new run from its first frame as it arrives (display only).
    """

    alpha: float = option(0.01, "--alpha", "output scale α = τ², in [{:g}, {:g}] "
                          "(default 0.01)".format(*limits.ALPHA_RANGE))
    compare: bool = True
    alpha2: float = option(100.0, "--compare-alpha", "add a second run at this α, side by side, "
                           "in [{:g}, {:g}]".format(*limits.ALPHA_RANGE), metavar="ALPHA2",
                           sets={"compare": True})
    width: int = option(20, "--width-m", f"student width m, even, {_range(limits.TRAIN_WIDTH_RANGE)} "
                        "(default 20)", metavar="M")
    samples: int = option(15, "--samples", f"training inputs n, {_range(limits.TRAIN_SAMPLES_RANGE)} "
                          "(default 15)")
    teacher: int = option(3, "--teacher", f"teacher neurons m0, {_range(limits.TEACHER_RANGE)} "
                          "(default 3)")
    dim: int = option(2, "--dim", "input dimension d, inputs on Sᵈ⁻¹, "
                      f"{_range(limits.TRAIN_DIM_RANGE)} (default 2)")
    lr: float = option(0.005, "--lr", "step size, the same for every α, in [1e-06, 1000] "
                       "(default 0.005)")
    steps: int = option(10000, "--steps", f"gradient steps, {_range(limits.STEPS_RANGE)} "
                        "(default 10000)")
    frames: int = option(120, "--frames", f"recorded frames after the first, "
                         f"{_range(limits.FRAMES_RANGE)}, log-spaced in time (default 120)")
    seed: int = option(0, "--seed", f"teacher, data and initialisation seed, {_range(limits.SEED_RANGE)}")
    init: str = option("symmetric", "--init", f"initialisation: {' or '.join(limits.INITS)} "
                       "(default symmetric)")
    ntk_scaling: bool = option(False, "--ntk-scaling", "multiply the student by 1/sqrt(m)",
                               value=True)
    log_time: bool = option(True, "--linear-time", "record frames evenly spaced in time instead "
                            "of log-spaced", value=False)
    metrics: tuple[str, ...] = option(DEFAULT_METRICS, "--metrics", "metric curves drawn, "
                                      f"comma-separated (default: {', '.join(DEFAULT_METRICS)})",
                                      metavar="NAMES", text=_metric_names)
    frame: int = option(-1, "--frame", "frame for PNG/SVG/CSV: 0 = initialisation … frame count − 1, "
                        "or -1 = the last (default)", metavar="N")
    autoplay: bool = True

    def __post_init__(self):
        check_float("alpha", self.alpha, limits.ALPHA_RANGE)
        check_bool("compare", self.compare)
        check_float("alpha2", self.alpha2, limits.ALPHA_RANGE)
        check_int("width", self.width, limits.TRAIN_WIDTH_RANGE)
        if self.width % 2:
            raise ValueError(f"width must be even (neurons come in symmetrised pairs), "
                             f"got {self.width}")
        check_int("samples", self.samples, limits.TRAIN_SAMPLES_RANGE)
        check_int("teacher", self.teacher, limits.TEACHER_RANGE)
        check_int("dim", self.dim, limits.TRAIN_DIM_RANGE)
        check_float("lr", self.lr, limits.LR_RANGE)
        check_int("steps", self.steps, limits.STEPS_RANGE)
        check_int("frames", self.frames, limits.FRAMES_RANGE)
        check_int("seed", self.seed, limits.SEED_RANGE)
        check_choice("init", self.init, limits.INITS)
        check_bool("ntk_scaling", self.ntk_scaling)
        check_bool("log_time", self.log_time)
        check_bool("autoplay", self.autoplay)
        if not isinstance(self.metrics, tuple):
            raise ValueError(f"metrics must be a list of names, got {self.metrics!r}")
        for key in self.metrics:
            if key not in METRICS:
                raise ValueError(f"metrics must be among {', '.join(METRICS)}; got {key!r}")
        check_distinct("metrics", self.metrics, "name")
        check_int("frame", self.frame, (-1, self.frame_count() - 1))

    def frame_count(self) -> int:
        """Frames of the timeline (the initialisation and the recorded steps); a run that
        diverges stops earlier."""
        return len(frame_steps(self.steps, self.frames, self.log_time))

    @property
    def compare_alpha(self) -> float | None:
        """The second run's α, or None without ``compare``."""
        return self.alpha2 if self.compare else None


class TrainingModel(ParamModel):
    """The lazy-training panel's model: builds a :class:`ntkviz.jobs.TrainRequest`."""

    Params = TrainingParams
    display_only = frozenset({"metrics", "frame", "autoplay"})
    views = (View("figure", "the whole figure (CSV: the metrics of every frame)"),
             View("neurons", "the first run's neurons (CSV: at --frame)"),
             View("predictor", "the first run's predictors (CSV: at --frame)"),
             View("metrics", "the first run's metrics"),
             View("neurons_2", "the second run's neurons", needs={"compare": True}),
             View("predictor_2", "the second run's predictors", needs={"compare": True}),
             View("metrics_2", "the second run's metrics", needs={"compare": True}))
    #: an export is one run unless --compare-alpha asks for two, and never plays
    export_state = {"compare": False, "autoplay": False}

    @classmethod
    def csv_table(cls, params: TrainingParams, response, view: str):
        """The view's table at the frame shown (``frame``)."""
        return response.csv_table(view, params.frame)

    @classmethod
    def parse(cls, state, base=None):
        """As :meth:`ParamModel.parse`; also reads sessions of earlier versions, whose
        ``compare_alpha`` (a number, or null for one run) is now ``compare`` and ``alpha2``."""
        if isinstance(state, dict) and "compare_alpha" in state:
            state = dict(state)
            second = state.pop("compare_alpha")
            state["compare"] = second is not None
            if second is not None:
                state["alpha2"] = second
        return super().parse(state, base)

    @classmethod
    def build_request(cls, params: TrainingParams):
        """The :class:`ntkviz.jobs.TrainRequest` of ``params``: calling it runs to the end;
        its ``iterate()`` yields cumulative responses (the GUI's cancellable job)."""
        from ntkviz.core import TrainConfig
        from ntkviz.jobs import TrainRequest

        config = TrainConfig(alpha=params.alpha, width=params.width, samples=params.samples,
                             teacher=params.teacher, lr=params.lr, steps=params.steps,
                             frames=params.frames, seed=params.seed, dim=params.dim,
                             ntk_scaling=params.ntk_scaling, log_time=params.log_time,
                             init=params.init)
        return TrainRequest(config, params.compare_alpha)

    def update(self, **changes) -> frozenset:
        """As :meth:`ParamModel.update`; when a change of the timeline makes it shorter
        than the frame shown, the last frame is shown instead of refusing the change."""
        if "frame" not in changes and any(k in changes for k in RUN_FIELDS):
            probe = {k: changes.get(k, getattr(self.params, k)) for k in RUN_FIELDS}
            try:
                count = len(frame_steps(**probe))
            except (TypeError, ValueError):
                count = None  # invalid: let the dataclass name the field
            if count is not None and self.params.frame >= count:
                changes["frame"] = -1
        return super().update(**changes)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states for the figure gallery: the default and the extremes."""
        one = {"compare": False, "autoplay": False}
        return {
            "default": {"autoplay": False},
            # far from lazy: neurons travel to the teacher directions (needs lr ≲ α/2)
            "alpha_1e-3": {**one, "alpha": 1e-3, "lr": 4e-4, "steps": 40000},
            # deep in the lazy regime: the net is its linearisation
            "alpha_1e3": {**one, "alpha": 1e3},
            "side_by_side_extremes": {"alpha": 1e-3, "alpha2": 1e3, "lr": 4e-4, "steps": 40000,
                                      "autoplay": False},
            "wide_many_samples": {**one, "alpha": 1.0, "width": 1000, "samples": 200,
                                  "steps": 1000, "lr": 0.002},
            "high_dim_first_frame": {**one, "alpha": 1.0, "dim": 100, "frame": 0},
            "all_metrics": {"autoplay": False, "metrics": list(METRICS)},
        }

