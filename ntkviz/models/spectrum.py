"""Parameters of the eigenvalue-decay panel (Qt-free).

Mercer eigenvalues μ_k, k = 0..``kmax``, of the chosen kernels on the sphere
S^{p−1} ⊂ R^p (p = ``dim``), for the uniform probability measure, so that
Σ_k N(p, k) μ_k = κ(1). :class:`SpectrumModel` turns the parameters into a
:class:`ntkviz.jobs.SpectrumRequest`. Importing this module loads neither
numba, scipy nor Qt.
"""
from __future__ import annotations

from dataclasses import dataclass

from ntkviz import limits
from ntkviz._check import check_bool, check_int
from ntkviz.limits import SPECTRUM_KMAX_RANGE
from ntkviz.models._base import ParamModel
from ntkviz.models._options import View, option
from ntkviz.models.kernel_curves import KernelChoice, kernel_specs

__all__ = ["SpectrumParams", "SpectrumModel"]


@dataclass(frozen=True)
class SpectrumParams(KernelChoice):
    """Eigenvalue-decay panel parameters.

    ``dim`` is p (sphere S^{p−1}), ``kmax`` the largest degree. Display only:
    ``weighted`` (plot N(p, k) μ_k, degree k's share of κ(1), instead of μ_k), ``guides``
    (the asymptotic decay C k^exponent, constants from closed forms) and ``slope``
    (the local log–log slope view).
    """

    dim: int = option(3, "--dim", "input dimension p, {}..{} (default 3)".format(
        *limits.DIM_RANGE), metavar="P")
    kmax: int = option(100, "--kmax", "largest degree k, {}..{} (default 100)".format(
        *SPECTRUM_KMAX_RANGE))
    weighted: bool = option(False, "--weighted", "plot N(p, k) μₖ instead of μₖ", value=True)
    guides: bool = option(True, "--no-guides", "omit the C k^exponent guide lines", value=False)
    slope: bool = True

    def __post_init__(self):
        super().__post_init__()
        check_int("dim", self.dim, limits.DIM_RANGE)
        check_int("kmax", self.kmax, SPECTRUM_KMAX_RANGE)
        for name in ("weighted", "guides", "slope"):
            check_bool(name, getattr(self, name))


class SpectrumModel(ParamModel):
    """Model of the eigenvalue-decay panel (``ntkviz export spectrum`` fills the same one)."""

    Params = SpectrumParams
    display_only = frozenset({"weighted", "guides", "slope"})
    views = (View("spectrum", "μₖ against k"),
             View("slope", "local log–log slope", shows={"slope": True}))

    @classmethod
    def build_request(cls, params: SpectrumParams):
        """The :class:`ntkviz.jobs.SpectrumRequest` drawing ``params`` (guides, slopes and the
        multiplicity-weighted values are always computed)."""
        from ntkviz.jobs import SpectrumRequest

        return SpectrumRequest(specs=kernel_specs(params), dim=params.dim, kmax=params.kmax)

    @classmethod
    def csv_table(cls, params: SpectrumParams, response, view: str):
        """The view's table, with ``y_plotted`` (and the slopes) of the plotted quantity:
        N(p, k) μ_k when ``weighted``."""
        return response.csv_table(view, weighted=params.weighted)

    @classmethod
    def gallery_cases(cls) -> dict[str, dict]:
        """Session states worth looking at: the default and the extremes."""
        return {
            "default": {},
            "p39_kmax1807": {"dim": 39, "kmax": 1807},
            "p20_ntk_arccos1": {"kernels": ["ntk", "arccos1"], "dim": 20},
            "p1000_kmax2000_depth50_bias": {"kernels": ["ntk", "nngp"], "depth": 50, "bias": 1.0,
                                            "dim": 1000, "kmax": 2000},
            "all_kernels_weighted": {"kernels": ["arccos0", "arccos1", "ntk", "nngp"],
                                     "extra_depths": [3], "dim": 5, "kmax": 500,
                                     "weighted": True},
        }
