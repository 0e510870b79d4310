"""Parameters of the Generalisation panel (Qt-free; loads neither numba, scipy nor Qt).

Kernel ridge regression ``f̂ = K(x, X)(K(X, X) + δ I)⁻¹ y`` on ``n`` uniform points of the
sphere S^{p−1} (δ = ``ridge``, **not** multiplied by n), labels ``y = f + σ ε`` (σ =
``noise``). ``target`` uses the command line's syntax: degree components ``k:c,k:c``
(c · P_k(⟨x, z_k⟩)), ``harmonic:K``, ``ridge:T``, ``step:T`` or ``abs``. The model builds a
light :class:`ntkviz.jobs.GeneralisationRequest` (theory, fit, GP samples, partial sums) and,
on demand, the heavy :class:`ntkviz.jobs.LearningMonteCarloRequest` over ``mc_sizes``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ntkviz import limits
from ntkviz._check import check_choice, check_float, check_int
from ntkviz._text import check_distinct
from ntkviz.models._base import ParamModel
from ntkviz.models._options import View, option
from ntkviz.models.kernel_curves import KernelChoice, choice_specs, kernel_specs, kernels_field

__all__ = ["LearningParams", "LearningModel", "parse_target_text", "VIEWS"]

#: what the lower-right plot shows (display only)
VIEWS = ("fit", "gp", "partial_sums", "approximation")
THRESHOLD_MAX = 0.99


def parse_target_text(text: str, kmax: int = limits.LEARN_KMAX_RANGE[1]) -> dict:
    """``{"kind", "components", "threshold"}`` of a target text (ValueError naming ``target``
    and the allowed forms otherwise)."""
    forms = (f"allowed: k:c,... with degrees in [0, kmax] and |c| <= {limits.TARGET_COEFFICIENT_MAX:g}, "
             f"harmonic:K, ridge:T, step:T with T in [-{THRESHOLD_MAX}, {THRESHOLD_MAX}], abs")
    if not isinstance(text, str):
        raise ValueError(f"target must be text, got {text!r}")
    head, _, rest = text.strip().partition(":")
    try:
        if head in ("ridge", "step"):
            t = float(rest) if rest else 0.0
            if not (math.isfinite(t) and abs(t) <= THRESHOLD_MAX):
                raise ValueError(f"threshold {rest} out of range")
            return {"kind": head, "components": (), "threshold": t}
        if head == "abs" and not rest:
            return {"kind": "abs", "components": (), "threshold": 0.0}
        if head == "harmonic":
            pairs = ((int(rest), 1.0),)
        else:
            pairs = []
            for token in text.split(","):
                k, sep, c = token.partition(":")
                if not sep or float(k) != int(float(k)):
                    raise ValueError(token)
                pairs.append((int(float(k)), float(c)))
        for k, c in pairs:
            if not 0 <= k <= kmax or not abs(c) <= limits.TARGET_COEFFICIENT_MAX:
                raise ValueError(f"{k}:{c}")
        if len({k for k, _ in pairs}) != len(pairs):
            raise ValueError("repeated degree")
        return {"kind": "components", "components": tuple(pairs), "threshold": 0.0}
    except ValueError:
        raise ValueError(f"target {text!r} is not valid ({forms.replace('kmax', str(kmax))})") from None


@dataclass(frozen=True)
class LearningParams(KernelChoice):
    """Generalisation panel parameters.

    ``dim`` p in [2, 1000]; ``target`` (module docstring); ``ridge`` δ in [0, 1e6]; ``noise`` σ
    in [0, 1000]; ``n`` the current sample size in [1, 1e5] (learnabilities, the fit);
    ``mc_sizes`` the Monte-Carlo sample sizes (each in [1, 20000]) and ``seeds`` runs each
    (first seed ``seed``); ``kmax`` the spectrum's highest degree in [10, 2000] (the tail
    above is analytic). Display only: ``view`` (lower-right plot, one of :data:`VIEWS`).
    """

    kernels: tuple[str, ...] = kernels_field(("ntk", "arccos1"))
    dim: int = option(3, "--dim", "input dimension p in [2, 1000]")
    target: str = option("1:1,2:1,4:1,7:1", "--target",
                         "k:c,... | harmonic:K | ridge:T | step:T | abs")
    ridge: float = option(1e-3, "--ridge", "ridge δ in [0, 1e6] (not multiplied by n)")
    noise: float = option(0.0, "--noise", "label noise σ in [0, 1000]")
    n: int = option(200, "--n", "current sample size in [1, 100000]")
    mc_sizes: tuple[int, ...] = (50, 100, 200, 500, 1000)
    seeds: int = 5
    seed: int = option(0, "--seed", "seed of the target directions and the fit")
    kmax: int = option(500, "--kmax", "spectrum degree in [10, 2000]")
    view: str = option("fit", "--show", "what the 'view' plot shows (default fit)", choices=VIEWS)

    def __post_init__(self):
        super().__post_init__()
        if len(choice_specs(self)) > 6:
            raise ValueError(f"at most 6 kernels at once, got {len(choice_specs(self))}")
        check_int("dim", self.dim, limits.DIM_RANGE)
        check_int("kmax", self.kmax, limits.LEARN_KMAX_RANGE)
        parse_target_text(self.target, self.kmax)
        check_float("ridge", self.ridge, limits.RIDGE_RANGE)
        check_float("noise", self.noise, limits.NOISE_RANGE)
        check_int("n", self.n, limits.PANEL_N_RANGE)
        if not isinstance(self.mc_sizes, tuple) or not self.mc_sizes:
            raise ValueError(f"mc_sizes must be a non-empty list of integers, got {self.mc_sizes!r}")
        for v in self.mc_sizes:
            check_int("mc_sizes", v, limits.MC_N_RANGE)
        check_distinct("mc_sizes", self.mc_sizes, "size")
        check_int("seeds", self.seeds, limits.MC_SEEDS_RANGE)
        check_int("seed", self.seed, limits.MC_SEED_RANGE)
        check_choice("view", self.view, VIEWS)
        if "ntk" in self.kernels and self.activation == "step":
            raise ValueError("activation step: the step NTK has κ(1) = inf (no kernel regression); "
                             "choose another activation or drop NTK")


def _target(params):
    from ntkviz.core.learning import Target

    return Target(**parse_target_text(params.target, params.kmax))


def _labels(specs) -> tuple:
    return tuple(s.label for s in specs)


class LearningModel(ParamModel):
    """Model of the Generalisation panel (``ntkviz export learning`` fills the same one)."""

    Params = LearningParams
    display_only = frozenset({"view", "mc_sizes", "seeds"})
    views = (View("curve", "test MSE against n (theory)"),
             View("learnability", "Lₖ at --n"),
             View("view", "the plot chosen by --show: fit, gp, partial_sums or approximation"))

    @classmethod
    def csv_table(cls, params: LearningParams, response, view: str):
        """The view's table; ``view`` is the plot chosen by ``params.view``."""
        return response.csv_table(params.view if view == "view" else view)

    @classmethod
    def build_request(cls, params: LearningParams):
        """The light :class:`ntkviz.jobs.GeneralisationRequest` of ``params``."""
        from ntkviz.jobs import GeneralisationRequest

        specs = kernel_specs(params)
        return GeneralisationRequest(specs, _target(params), dim=params.dim, ridge=params.ridge,
                                     noise=params.noise, n=params.n, kmax=params.kmax,
                                     labels=_labels(specs), seed=params.seed)

    @classmethod
    def monte_carlo_request(cls, params: LearningParams):
        """The heavy :class:`ntkviz.jobs.LearningMonteCarloRequest` (on demand, on a worker)."""
        from ntkviz.jobs import LearningMonteCarloRequest

        specs = kernel_specs(params)
        return LearningMonteCarloRequest(specs, _target(params), dim=params.dim, ridge=params.ridge,
                                         noise=params.noise, n_values=tuple(sorted(set(params.mc_sizes))),
                                         kmax=params.kmax, labels=_labels(specs), seeds=params.seeds,
                                         seed=params.seed, n_test=1000)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states worth looking at: the default and the extremes."""
        return {
            "default": {},
            "ridge_target_p10": {"target": "ridge:0.2", "dim": 10, "kernels": ["ntk", "nngp"], "depth": 3},
            "zero_degree_step": {"target": "step:0", "kernels": ["arccos0", "arccos1"], "n": 1000},
            "p1000_kmax2000_depth50_bias": {"kernels": ["ntk", "nngp"], "depth": 50, "bias": 1.0,
                                            "dim": 1000, "kmax": 2000, "n": 100_000},
            "tiny_ridge_noise": {"ridge": 1e-12, "noise": 1.0, "n": 3000, "view": "gp"},
            "huge_ridge": {"ridge": 1e6, "n": 1, "view": "partial_sums"},
            "circle_p2": {"dim": 2, "target": "abs", "view": "fit"},
        }
