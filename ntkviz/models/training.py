"""Parameters of the lazy-training panel (Qt-free).

One run, or two side by side (``compare``: the same teacher, data,
initialisation and step size at a second output scale ``alpha2``), of a
two-layer ReLU network trained by gradient descent at output scale α = τ²
(Chizat, Oyallon & Bach 2019), see :mod:`ntkviz.core.training.dynamics`.
:class:`TrainingModel` turns them into a :class:`ntkviz.jobs.TrainRequest`.

Display-only fields (no new computation): ``metrics`` (curves drawn on the
metric plot), ``frame`` (the timeline frame shown: ``-1`` is the last; also the
frame an export draws) and ``autoplay`` (play a new run as its frames arrive).

The tab's second page is a **sweep** (an on-demand job of its own,
:meth:`TrainingModel.sweep_request`: a :class:`ntkviz.jobs.LazySweepSetRequest`): one run per
output scale α of ``sweep_alphas``, width of ``sweep_widths``, seed and output scaling of
``sweep_scalings``, on the data of the single run (``dim``, ``samples``, ``teacher``, ``seed``)
with its step size and steps. Its fields (``sweep_*``) never restart the single run; ``page``
(the page shown), ``sweep_plot`` (the sweep figure shown), ``sweep_x`` (α or τ = √α on the
α-sweep's axis) and ``sweep_metric`` (the quantity beside the test losses) only change the drawing.
Importing this module loads neither numba, scipy nor Qt.
"""
from __future__ import annotations

from dataclasses import dataclass

from ntkviz import limits
from ntkviz._check import check_bool, check_choice, check_float, check_int
from ntkviz._text import check_distinct
from ntkviz.core import METRICS, frame_steps
from ntkviz.core.training.sweep import DEFAULT_ALPHAS, GAP_THRESHOLD, SCALINGS
from ntkviz.models._base import ParamModel
from ntkviz.models._options import View, option

__all__ = ["TrainingParams", "TrainingModel", "DEFAULT_METRICS", "SWEEP_VIEWS", "SWEEP_PLOTS",
           "SWEEP_SHOWN_METRICS", "SWEEP_FIELDS", "PAGES"]

#: metrics drawn by default (keys of :data:`ntkviz.core.training.dynamics.METRICS`)
DEFAULT_METRICS = ("train_loss", "test_loss", "relative_displacement", "gap", "kernel_drift",
                   "flip_share")
#: fields that select the computation: changing one may shorten the timeline
RUN_FIELDS = ("steps", "frames", "log_time")
#: the pages of the tab: the single run (or two side by side) and the sweeps
PAGES = ("run", "sweep")
#: the sweep figures (``sweep_plot``) and the exportable view of each
SWEEP_PLOTS = ("alpha", "width", "double_descent")
SWEEP_VIEWS = {"alpha": "sweep_alpha", "width": "sweep_width", "double_descent": "double_descent"}
#: what the α and width figures draw beside the test losses (``sweep_metric``)
SWEEP_SHOWN_METRICS = ("displacement", "kernel_drift", "flip_share", "train_loss_net", "kappa_alpha")
#: the x axis of the α-sweep: the output scale α or the initialisation scale τ = √α
SWEEP_AXES = ("alpha", "tau")
#: initialisations of the sweep: auto (centered for the last layer alone, else symmetric)
SWEEP_INITS = ("auto", *limits.INITS)
#: the sweep's own fields (its job reads them with the data fields; the single run never does)
SWEEP_FIELDS = frozenset({"sweep_alphas", "sweep_widths", "sweep_scalings", "sweep_train",
                          "sweep_noise", "sweep_ridge", "sweep_seeds", "sweep_init", "sweep_gap"})


def _metric_names(flag: str, text: str) -> tuple[str, ...]:
    names = tuple(t.strip() for t in text.split(","))
    if any(not t for t in names):
        raise ValueError(f"{flag} must be names separated by single commas, got {text!r}")
    return names


def _range(bounds) -> str:
    return "in [{}, {}]".format(*bounds)


def _number_list(kind: type):
    """An option reader: ``"1,10,100"`` -> a tuple of ``kind`` (:func:`ntkviz._text.parse_list`)."""
    def parse(flag: str, text: str) -> tuple:
        from ntkviz._text import parse_list

        return parse_list(flag, text, kind, allow_blank=False)

    return parse


def _scalings(flag: str, text: str) -> tuple[str, ...]:
    from ntkviz._text import parse_list

    return parse_list(flag, text, str, SCALINGS, allow_blank=False)


def _ridge(flag: str, text: str) -> float | None:
    """``none`` (gradient descent) -> None, else a number."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{flag} must be a number or none, got {text!r}") from None


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
    page : the tab's page shown, ``"run"`` or ``"sweep"`` (display only).
    sweep_alphas : distinct output scales α of the sweep, each in [1e-4, 1e6].
    sweep_widths : distinct widths m of the sweep, each in [2, 65536] (even with the symmetric
        initialisation).
    sweep_scalings : distinct output scalings of the width, one sweep each: ``ntk`` (1/√m),
        ``meanfield`` (1/m, steps ``lr``·m) or ``none`` (1).
    sweep_train : trained layers, ``all``, ``last`` (random features) or ``first``.
    sweep_noise : σ of the label noise on the sweep's training targets, in [0, 1000].
    sweep_ridge : with ``sweep_train="last"``, the ridge δ in [0, 1e6] of the closed-form last
        layer (None: gradient descent).
    sweep_seeds : runs per point, in [1, 100] (seeds ``seed``, ``seed`` + 1, …).
    sweep_init : ``auto`` (centered for the last layer alone, else symmetric), ``symmetric`` or
        ``centered``.
    sweep_gap : relative gap of the test losses that defines the crossover α*, in (0, 10].
    sweep_plot : the sweep figure shown, one of :data:`SWEEP_PLOTS` (display only).
    sweep_x : the α-sweep's axis, ``alpha`` or ``tau`` = √α (display only).
    sweep_metric : the quantity drawn beside the test losses, one of
        :data:`SWEEP_SHOWN_METRICS` (display only).
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
    page: str = "run"
    sweep_alphas: tuple[float, ...] = option(
        DEFAULT_ALPHAS, "--sweep-alphas", "the sweep's distinct output scales α, each in "
        "[{:g}, {:g}] (default: 13 values from 1e-2 to 1e4)".format(*limits.ALPHA_RANGE),
        metavar="A1,A2,...", text=_number_list(float))
    sweep_widths: tuple[int, ...] = option(
        (20,), "--sweep-widths", f"the sweep's distinct widths m, each {_range(limits.TRAIN_WIDTH_RANGE)}, "
        "even with the symmetric initialisation (default 20)", metavar="M1,M2,...",
        text=_number_list(int))
    sweep_scalings: tuple[str, ...] = option(
        ("ntk",), "--sweep-scaling", "output scaling of the width, one sweep each: ntk (1/sqrt(m)), "
        "meanfield (1/m, steps lr*m), none (1), or several comma-separated (default ntk)",
        metavar="NAMES", text=_scalings)
    sweep_train: str = option("all", "--sweep-train", "trained layers of the sweep: all, last (random "
                              "features) or first (default all)", choices=limits.TRAIN_LAYERS)
    sweep_noise: float = option(0.0, "--sweep-noise", "std of the label noise on the sweep's training "
                                "targets, in [0, 1000] (default 0)", metavar="SIGMA")
    sweep_ridge: float | None = option(
        None, "--sweep-ridge", "with --sweep-train last: solve the last layer in closed form with this "
        "ridge in [0, 1e6], or none: gradient descent (default none)", metavar="DELTA", text=_ridge)
    sweep_seeds: int = option(3, "--sweep-seeds", "runs per point of the sweep, "
                              f"{_range(limits.LAZY_SEEDS_RANGE)} (default 3)", metavar="K")
    sweep_init: str = option("auto", "--sweep-init", "initialisation of the sweep: auto (centered for "
                             "the last layer alone, else symmetric), symmetric or centered",
                             choices=SWEEP_INITS)
    sweep_gap: float = option(GAP_THRESHOLD, "--sweep-gap", "relative gap |L_net - L_lin|/L_lin of the "
                              "test losses that defines alpha*, in (0, 10] (default 0.1)", metavar="G")
    sweep_plot: str = "alpha"
    sweep_x: str = option("alpha", "--sweep-x", "axis of the alpha-sweep: alpha or tau = sqrt(alpha) "
                          "(default alpha)", choices=SWEEP_AXES)
    sweep_metric: str = option("displacement", "--sweep-metric", "quantity drawn beside the test "
                               "losses (default displacement)", choices=SWEEP_SHOWN_METRICS)

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
        self._check_sweep()

    def _check_sweep(self) -> None:
        check_choice("page", self.page, PAGES)
        for name, kind in (("sweep_alphas", float), ("sweep_widths", int), ("sweep_scalings", str)):
            values = getattr(self, name)
            if not isinstance(values, tuple) or not values:
                raise ValueError(f"{name} must be a non-empty list, got {values!r}")
        for v in self.sweep_alphas:
            check_float("sweep_alphas", v, limits.ALPHA_RANGE)
        for v in self.sweep_widths:
            check_int("sweep_widths", v, limits.TRAIN_WIDTH_RANGE)
        for v in self.sweep_scalings:
            check_choice("sweep_scalings", v, SCALINGS)
        for name in ("sweep_alphas", "sweep_widths", "sweep_scalings"):
            check_distinct(name, getattr(self, name))
        check_choice("sweep_train", self.sweep_train, limits.TRAIN_LAYERS)
        check_float("sweep_noise", self.sweep_noise, limits.TRAIN_NOISE_RANGE)
        if self.sweep_ridge is not None:
            check_float("sweep_ridge", self.sweep_ridge, limits.RIDGE_RANGE)
            if self.sweep_train != "last":
                raise ValueError(f"sweep_ridge applies to the last layer trained alone "
                                 f"(sweep_train last), got sweep_train {self.sweep_train}")
        check_int("sweep_seeds", self.sweep_seeds, limits.LAZY_SEEDS_RANGE)
        check_choice("sweep_init", self.sweep_init, SWEEP_INITS)
        check_float("sweep_gap", self.sweep_gap, (0.0, 10.0))
        if self.sweep_gap <= 0.0:
            raise ValueError(f"sweep_gap must be in (0, 10], got {self.sweep_gap!r}")
        check_choice("sweep_plot", self.sweep_plot, SWEEP_PLOTS)
        check_choice("sweep_x", self.sweep_x, SWEEP_AXES)
        check_choice("sweep_metric", self.sweep_metric, SWEEP_SHOWN_METRICS)
        try:  # what depends on several fields (even widths, seeds), by the job's own checks
            TrainingModel.sweep_request(self)
        except ValueError as exc:
            raise ValueError(f"sweep: {exc}") from None

    def frame_count(self) -> int:
        """Frames of the timeline (the initialisation and the recorded steps); a run that
        diverges stops earlier."""
        return len(frame_steps(self.steps, self.frames, self.log_time))

    @property
    def compare_alpha(self) -> float | None:
        """The second run's α, or None without ``compare``."""
        return self.alpha2 if self.compare else None


def _sweep_view(plot: str, text: str) -> View:
    return View(SWEEP_VIEWS[plot], text, shows={"page": "sweep", "sweep_plot": plot},
                needs={"page": "sweep"})


class TrainingModel(ParamModel):
    """The lazy-training panel's model: builds a :class:`ntkviz.jobs.TrainRequest` (the single
    run, live) and, on demand, a :class:`ntkviz.jobs.LazySweepSetRequest` (the sweep)."""

    Params = TrainingParams
    #: the drawing's fields, and the sweep's: the sweep is a job of its own (on demand), so
    #: none of its fields restarts the single run
    display_only = frozenset({"metrics", "frame", "autoplay", "page", "sweep_plot", "sweep_x",
                              "sweep_metric"}) | SWEEP_FIELDS
    views = (View("figure", "the whole figure (CSV: the metrics of every frame)"),
             View("neurons", "the first run's neurons (CSV: at --frame)"),
             View("predictor", "the first run's predictors (CSV: at --frame)"),
             View("metrics", "the first run's metrics"),
             View("neurons_2", "the second run's neurons", needs={"compare": True}),
             View("predictor_2", "the second run's predictors", needs={"compare": True}),
             View("metrics_2", "the second run's metrics", needs={"compare": True}),
             _sweep_view("alpha", "the sweep against α: test losses and --sweep-metric, mean ± s.e. "
                                  "over seeds, the crossover α* (CSV: one row per (α, m))"),
             _sweep_view("width", "the sweep against the width m per scaling (CSV: as sweep_alpha)"),
             _sweep_view("double_descent", "random features (--sweep-train last): test loss against "
                                           "m/n and its kernel limit (CSV: as sweep_alpha)"))
    #: an export is one run unless --compare-alpha asks for two, and never plays
    export_state = {"compare": False, "autoplay": False}

    @classmethod
    def csv_table(cls, params: TrainingParams, response, view: str):
        """The view's table at the frame shown (``frame``); a sweep view's is the sweep's table
        (:meth:`ntkviz.jobs.LazySweepSetResponse.csv_table`): of ``response`` when it is the
        sweep's, else of the sweep computed here."""
        from ntkviz.jobs import LazySweepSetResponse

        if view in SWEEP_VIEWS.values():
            sweep = response if isinstance(response, LazySweepSetResponse) else \
                cls.sweep_request(params)()
            return sweep.csv_table()
        return response.csv_table(view, params.frame)

    @classmethod
    def sweep_request(cls, params: TrainingParams):
        """The :class:`ntkviz.jobs.LazySweepSetRequest` of ``params``: one sweep per scaling of
        ``sweep_scalings`` over ``sweep_alphas`` × ``sweep_widths`` × ``sweep_seeds`` runs on the
        single run's data (``dim``, ``samples``, ``teacher``, first seed ``seed``), step size
        ``lr`` and ``steps``."""
        from ntkviz.jobs import LazySweepSetRequest

        return LazySweepSetRequest.of(
            params.sweep_scalings, alphas=params.sweep_alphas, widths=params.sweep_widths,
            layers=params.sweep_train, dim=params.dim, samples=params.samples,
            teacher=params.teacher, noise=params.sweep_noise, ridge=params.sweep_ridge,
            lr=params.lr, steps=params.steps, seeds=params.sweep_seeds, seed=params.seed,
            init=None if params.sweep_init == "auto" else params.sweep_init, gap=params.sweep_gap)

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
        sweep = {**one, "page": "sweep"}
        random_features = {"sweep_plot": "double_descent", "sweep_alphas": [1.0],
                           "sweep_widths": [25, 50, 75, 100, 133, 200, 400, 800, 3200],
                           "sweep_train": "last", "sweep_ridge": 1e-8, "sweep_noise": 0.1,
                           "samples": 100}
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
            # the sweeps (the page and its job): the α-sweep of the defaults, 3 seeds
            "sweep_alpha": {**sweep},
            "sweep_tau_kappa": {**sweep, "sweep_x": "tau", "sweep_metric": "kappa_alpha",
                                "sweep_widths": [20, 80]},
            "sweep_one_seed": {**sweep, "sweep_seeds": 1, "sweep_metric": "flip_share"},
            # rich α with a large step: the smallest α diverge and are left out, said so
            "sweep_diverged": {**sweep, "sweep_scalings": ["none"], "lr": 0.05, "steps": 300,
                               "sweep_alphas": [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]},
            # ‖w − w₀‖/‖w₀‖ ∝ m^-1/2 under NTK scaling, flat under mean field (the single run at
            # the same α, which its step size suits, to t = 25: three decades of time)
            "sweep_widths_ntk_meanfield": {**sweep, "sweep_plot": "width", "sweep_alphas": [1.0],
                                           "alpha": 1.0,
                                           "sweep_widths": [100, 300, 1000, 3000, 10000],
                                           "sweep_scalings": ["ntk", "meanfield"], "lr": 0.05,
                                           "steps": 500},
            # random features on S⁹: the peak at m = n, kernel ridge regression as m → ∞
            "double_descent_d10": {**sweep, **random_features, "dim": 10},
            # on the circle: no peak at m = n, and the figure says why
            "double_descent_circle": {**sweep, **random_features, "dim": 2},
        }

