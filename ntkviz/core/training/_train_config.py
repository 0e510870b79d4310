"""Parameters of a lazy-training run (light: NumPy only, no numba).

:class:`TrainConfig`, the metric names and the frame timeline live here so the
parameter model (:mod:`ntkviz.models.training`) and the command line can check a
request without loading the numba kernels of :mod:`ntkviz.core.training.dynamics`, which
re-exports every name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ntkviz import limits as _limits
from ntkviz._check import check_bool, check_choice, check_float, check_int

__all__ = ["TrainConfig", "METRICS", "INITS", "LAYERS", "alpha_from_tau", "tau_from_alpha",
           "frame_steps"]

#: initialisations: paired neurons (f(w0) = 0 exactly) or i.i.d. with the model centred
INITS = _limits.INITS
#: trained layers: both (the paper's), the output weights a only (random features: B frozen at
#: initialisation) or the input weights B only (a frozen)
LAYERS = _limits.TRAIN_LAYERS
#: each field's check: (name, check, range or choices); ranges from ``ntkviz.limits``
_FIELDS = (
    ("alpha", check_float, _limits.ALPHA_RANGE),
    ("width", check_int, _limits.TRAIN_WIDTH_RANGE),
    ("samples", check_int, _limits.TRAIN_SAMPLES_RANGE),
    ("teacher", check_int, _limits.TEACHER_RANGE),
    ("lr", check_float, _limits.LR_RANGE),
    ("steps", check_int, _limits.STEPS_RANGE),
    ("frames", check_int, _limits.FRAMES_RANGE),
    ("seed", check_int, _limits.SEED_RANGE),
    ("dim", check_int, _limits.TRAIN_DIM_RANGE),
    ("init", check_choice, INITS),
    ("layers", check_choice, LAYERS),
    ("noise", check_float, _limits.TRAIN_NOISE_RANGE),
)

#: per-frame scalar metrics: name -> description (CSV columns, plot legends)
METRICS: dict[str, str] = {
    "train_loss": "train loss of the net, (1/2n) sum (alpha h - y)^2",
    "test_loss": "test loss of the net, (1/2) mean (alpha h - y)^2",
    "linear_train_loss": "train loss of the linearised model",
    "linear_test_loss": "test loss of the linearised model",
    "kernel_test_loss": "test loss of the kernel flow with the empirical tangent kernel K0",
    "ntk_test_loss": "test loss of the kernel flow with the infinite-width tangent kernel of the"
                     " trained layers (the NTK when all layers train)",
    "displacement": "||w(t) - w0|| of the trained weights (alpha-parameterisation, unit init)",
    "relative_displacement": "||w(t) - w0|| / ||w0|| of the trained weights (same in the"
                             " tau-parameterisation)",
    "linear_displacement": "||wbar(t) - w0|| of the linearised model",
    "gap": "RMS over test inputs of alpha h(w_t) - alpha hbar(wbar_t)",
    "train_gap": "RMS over train inputs of alpha h(w_t) - alpha hbar(wbar_t)",
    "kernel_drift": "||K_t - K_0||_F / ||K_0||_F, empirical tangent kernel on the train inputs"
                    " (the first 200)",
    "flip_share": "share of (train input, neuron) ReLU patterns changed since init",
}


def tau_from_alpha(alpha: float) -> float:
    """Initialisation scale τ equivalent to output scale α for the 2-homogeneous net: τ = √α."""
    return math.sqrt(alpha)


def alpha_from_tau(tau: float) -> float:
    """Output scale α equivalent to initialisation std τ (2-homogeneous net): α = τ²."""
    return tau * tau


@dataclass(frozen=True)
class TrainConfig:
    """Parameters of one lazy-training run (every random draw follows from ``seed``).

    Valid by construction: every field is checked against its range in ``ntkviz.limits``
    (``ValueError`` naming the field) and stored in its type, so a ``TrainConfig`` is never
    checked again.

    Attributes
    ----------
    alpha : output scale α (= τ², τ the equivalent initialisation std), in [1e-4, 1e6] (a run
        at α = 1e-4 needs step sizes ~ 1e-5; 1e6 is deep in the lazy regime, where the net
        equals its linearisation to rounding).
    width : student width m, in [2, 65536]; even with the symmetrised initialisation.
    samples : number n of training inputs, in [1, 2000].
    teacher : teacher size m0, in [1, 64].
    lr : gradient-descent step size, the same for every α, in [1e-6, 1e3].
    steps : number of gradient steps, in [1, 10^6].
    frames : number of recorded frames after the initial one, in [1, 2000] (one per step when
        ``steps`` is smaller: every step is recorded then).
    seed : seed of the teacher, the data and the initialisation (α-independent).
    dim : input dimension d (inputs on S^{d-1}), in [2, 100].
    ntk_scaling : multiply the student by 1/√m (NTK parameterisation).
    log_time : record frames at log-spaced steps (else evenly spaced).
    init : "symmetric" (f(w0) = 0 exactly) or "centered" (i.i.d. weights, h = f − f(w0)).
    layers : trained layers, one of :data:`LAYERS` (the others stay at initialisation).
    mean_field : multiply the student by 1/m (mean-field parameterisation, Chizat & Bach
        2018) and take gradient steps of ``lr``·m: the particle flow of the mean-field limit
        runs in time t = ``lr``·step (exclusive with ``ntk_scaling``).
    noise : σ of the i.i.d. N(0, σ²) noise added to the training targets (the test loss is
        measured against the noiseless teacher), in [0, 1000].
    """

    alpha: float = 1.0
    width: int = 50
    samples: int = 15
    teacher: int = 3
    lr: float = 0.01
    steps: int = 5000
    frames: int = 120
    seed: int = 0
    dim: int = 2
    ntk_scaling: bool = False
    log_time: bool = True
    init: str = "symmetric"
    layers: str = "all"
    mean_field: bool = False
    noise: float = 0.0

    def __post_init__(self):
        for name, check, bounds in _FIELDS:
            object.__setattr__(self, name, check(name, getattr(self, name), bounds))
        for name in ("ntk_scaling", "log_time", "mean_field"):
            object.__setattr__(self, name, check_bool(name, getattr(self, name)))
        if self.width % 2 and self.init == "symmetric":
            raise ValueError(f"width must be even (symmetrised initialisation), got {self.width}")
        if self.ntk_scaling and self.mean_field:
            raise ValueError("ntk_scaling and mean_field exclude each other (output factor 1/√m or 1/m)")

    @property
    def tau(self) -> float:
        """Equivalent initialisation std τ = √α."""
        return tau_from_alpha(self.alpha)

    @property
    def scale(self) -> float:
        """Output factor s: 1/√m with ``ntk_scaling``, 1/m with ``mean_field``, else 1."""
        if self.mean_field:
            return 1.0 / self.width
        return 1.0 / math.sqrt(self.width) if self.ntk_scaling else 1.0

    @property
    def step_size(self) -> float:
        """The gradient step actually taken: ``lr``·m with ``mean_field`` (time t = ``lr``·step
        is the mean-field time), else ``lr``."""
        return self.lr * self.width if self.mean_field else self.lr

    def frame_steps(self) -> np.ndarray:
        """Sorted distinct steps at which frames are recorded (always 0 and ``steps``)."""
        return frame_steps(self.steps, self.frames, self.log_time)


def frame_steps(steps: int, frames: int, log_time: bool = True) -> np.ndarray:
    """Sorted distinct steps at which frames are recorded: step 0 (the initialisation),
    then ``min(frames, steps)`` distinct steps in [1, steps] ending at ``steps``: as many
    frames as asked unless the run has fewer steps (then every step is recorded).

    ``log_time``: log-spaced from 1 to ``steps``; where that spacing is below one step
    the frames take the next step instead (1, 2, 3, …) and the rest stay log-spaced up
    to ``steps`` (``x_j = x_{j-1} (steps/x_{j-1})^{1/r}``, ``r`` frames left, recorded
    at round(x_j)): ``round(geomspace(1, steps, frames))`` whenever that has no repeats.
    Else evenly spaced: ``round(j·steps/frames)``, ``j = 0..frames``."""
    count = min(int(frames), int(steps))
    if not log_time:
        return np.rint(np.linspace(0.0, steps, count + 1)).astype(np.int64)
    out = np.zeros(count + 1, dtype=np.int64)
    x = 1.0
    for j in range(1, count + 1):
        left = count - j + 1  # frames still to place, this one included
        if j > 1 or left == 1:
            x *= (steps / x) ** (1.0 / left)
        step = min(max(round(x), int(out[j - 1]) + 1), steps - left + 1)
        if step != round(x):
            x = float(step)  # crowded: the log spacing restarts from this step
        out[j] = step
    return out
