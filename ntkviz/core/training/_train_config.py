"""Parameters of a lazy-training run (light: NumPy only, no numba).

:class:`TrainConfig`, the metric names and the frame timeline live here so the
parameter model (:mod:`ntkviz.models.training`) and the command line can check a
request without loading the numba kernels of :mod:`ntkviz.core.dynamics`, which
re-exports every name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ntkviz.core._validate import check_choice, check_float, check_int

__all__ = ["TrainConfig", "METRICS", "INITS", "alpha_from_tau", "tau_from_alpha", "frame_steps",
           "ALPHA_RANGE"]

#: allowed output scales α (a run at α = 1e-4 needs step sizes ~ 1e-5; 1e6 is deep in the lazy
#: regime, where the net equals its linearisation to rounding)
ALPHA_RANGE = (1e-4, 1e6)
#: initialisations: paired neurons (f(w0) = 0 exactly) or i.i.d. with the model centred
INITS = ("symmetric", "centered")

#: per-frame scalar metrics: name -> description (CSV columns, plot legends)
METRICS: dict[str, str] = {
    "train_loss": "train loss of the net, (1/2n) sum (alpha h - y)^2",
    "test_loss": "test loss of the net, (1/2) mean (alpha h - y)^2",
    "linear_train_loss": "train loss of the linearised model",
    "linear_test_loss": "test loss of the linearised model",
    "kernel_test_loss": "test loss of the kernel flow with the empirical tangent kernel K0",
    "ntk_test_loss": "test loss of the kernel flow with the infinite-width NTK",
    "displacement": "||w(t) - w0|| (alpha-parameterisation, unit init)",
    "relative_displacement": "||w(t) - w0|| / ||w0|| (same in the tau-parameterisation)",
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

    Attributes
    ----------
    alpha : output scale α (= τ², τ the equivalent initialisation std), in [1e-4, 1e6].
    width : student width m, even, in [2, 65536] (symmetrised initialisation).
    samples : number n of training inputs, in [1, 2000].
    teacher : teacher size m0, in [1, 64].
    lr : gradient-descent step size, the same for every α, in (0, 1e3].
    steps : number of gradient steps, in [1, 10^6].
    frames : number of recorded frames after the initial one, in [1, 2000] (at most: log-spaced
        steps that round to the same integer are recorded once).
    seed : seed of the teacher, the data and the initialisation (α-independent).
    dim : input dimension d (inputs on S^{d-1}), in [2, 100].
    ntk_scaling : multiply the student by 1/√m (NTK parameterisation).
    log_time : record frames at log-spaced steps (else evenly spaced).
    init : "symmetric" (f(w0) = 0 exactly) or "centered" (i.i.d. weights, h = f − f(w0)).
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

    def validated(self) -> "TrainConfig":
        """Return a copy with normalised types; raise ``ValueError`` naming a bad field."""
        width = check_int("width", self.width, 2, 65536)
        if width % 2:
            raise ValueError(f"width must be even (symmetrised initialisation), got {width}")
        lr = check_float("lr", self.lr, 0.0, 1e3)
        if lr <= 0.0:
            raise ValueError(f"lr must be a finite number in (0, 1000], got {lr!r}")
        return TrainConfig(
            alpha=check_float("alpha", self.alpha, *ALPHA_RANGE),
            width=width,
            samples=check_int("samples", self.samples, 1, 2000),
            teacher=check_int("teacher", self.teacher, 1, 64),
            lr=lr,
            steps=check_int("steps", self.steps, 1, 1_000_000),
            frames=check_int("frames", self.frames, 1, 2000),
            seed=check_int("seed", self.seed, 0, 2**32 - 1),
            dim=check_int("dim", self.dim, 2, 100),
            ntk_scaling=bool(self.ntk_scaling),
            log_time=bool(self.log_time),
            init=check_choice("init", self.init, INITS),
        )

    @property
    def tau(self) -> float:
        """Equivalent initialisation std τ = √α."""
        return tau_from_alpha(self.alpha)

    @property
    def scale(self) -> float:
        """Output factor s: 1/√m with ``ntk_scaling``, else 1."""
        return 1.0 / math.sqrt(self.width) if self.ntk_scaling else 1.0

    def frame_steps(self) -> np.ndarray:
        """Sorted distinct steps at which frames are recorded (always 0 and ``steps``)."""
        return frame_steps(self.steps, self.frames, self.log_time)


def frame_steps(steps: int, frames: int, log_time: bool = True) -> np.ndarray:
    """Sorted distinct steps at which frames are recorded (always 0 and ``steps``):
    ``frames`` log-spaced steps in [1, steps] (or ``frames + 1`` evenly spaced in
    [0, steps]) rounded to integers, duplicates merged."""
    if log_time:
        raw = np.geomspace(1.0, steps, frames)
    else:
        raw = np.linspace(0.0, steps, frames + 1)
    return np.unique(np.concatenate([[0], np.rint(raw).astype(np.int64), [steps]]))
