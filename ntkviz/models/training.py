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
from ntkviz.core.training._train_config import METRICS, frame_steps
from ntkviz._text import check_distinct
from ntkviz.models._base import ParamModel, check_bool, check_float, check_int

__all__ = ["TrainingParams", "TrainingModel", "DEFAULT_METRICS", "LR_RANGE"]

#: metrics drawn by default (keys of :data:`ntkviz.core.training.dynamics.METRICS`)
DEFAULT_METRICS = ("train_loss", "test_loss", "relative_displacement", "gap", "kernel_drift",
                   "flip_share")
#: step sizes offered (the core accepts any positive step up to 1e3; below 1e-6 nothing moves
#: within the step budget, and a logarithmic slider needs a positive lower end)
LR_RANGE = (1e-6, limits.LR_RANGE[1])
#: fields that select the computation: changing one may shorten the timeline
RUN_FIELDS = ("steps", "frames", "log_time")


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

    alpha: float = 0.01
    compare: bool = True
    alpha2: float = 100.0
    width: int = 20
    samples: int = 15
    teacher: int = 3
    dim: int = 2
    lr: float = 0.005
    steps: int = 10000
    frames: int = 120
    seed: int = 0
    init: str = "symmetric"
    ntk_scaling: bool = False
    log_time: bool = True
    metrics: tuple[str, ...] = DEFAULT_METRICS
    frame: int = -1
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
        check_float("lr", self.lr, LR_RANGE)
        check_int("steps", self.steps, limits.STEPS_RANGE)
        check_int("frames", self.frames, limits.FRAMES_RANGE)
        check_int("seed", self.seed, limits.SEED_RANGE)
        if self.init not in limits.INITS:
            raise ValueError(f"init must be one of {', '.join(limits.INITS)}; got {self.init!r}")
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
        from ntkviz.core.training._train_config import TrainConfig
        from ntkviz.jobs import TrainRequest

        config = TrainConfig(alpha=params.alpha, width=params.width, samples=params.samples,
                             teacher=params.teacher, lr=params.lr, steps=params.steps,
                             frames=params.frames, seed=params.seed, dim=params.dim,
                             ntk_scaling=params.ntk_scaling, log_time=params.log_time,
                             init=params.init)
        return TrainRequest(config, params.compare_alpha)

    def update_run(self, **changes) -> frozenset:
        """:meth:`update` from a control: when the new timeline is shorter than the frame
        shown, show its last frame instead of refusing the change."""
        if "frame" not in changes and any(k in changes for k in RUN_FIELDS):
            probe = {k: changes.get(k, getattr(self.params, k)) for k in RUN_FIELDS}
            try:
                count = len(frame_steps(**probe))
            except (TypeError, ValueError):
                count = None  # invalid: let the dataclass name the field
            if count is not None and self.params.frame >= count:
                changes["frame"] = -1
        return self.update(**changes)

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

