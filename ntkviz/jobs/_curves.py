"""Requests behind the kernel-curve and eigenvalue-decay panels (Qt-free).

Each request is a frozen dataclass that validates its parameters on
construction (``ValueError`` naming the field and its allowed range) and, when
called, returns an immutable response holding exactly the arrays a panel
plots, which is also what ``ntkviz export {kernel,spectrum} --out x.csv`` writes.
The GUI runs them on worker threads; the CLI and the tests call them directly.

Conventions are those of :mod:`ntkviz.core`: cosines
``u ∈ [-1, 1]``; ``NTK_L(1) = L`` unless ``normalize``; Mercer eigenvalues ``μ_k``
for the uniform probability measure on ``S^{p-1}``, each of multiplicity
``N(p, k)``, so that ``Σ_k N(p, k) μ_k = κ(1)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import ClassVar

import numpy as np

from ntkviz import limits
from ntkviz._check import check_float, check_int
from ntkviz.jobs._run import Progress, run_to_end

__all__ = [
    "KernelCurveRequest", "KernelCurveResponse", "KernelCurve", "NearOneCurves",
    "EmpiricalOverlay", "SpectrumRequest", "SpectrumResponse", "SpectrumSeries", "GuideLine",
    "HOLDER_GUIDE", "LIPSCHITZ_GUIDE", "MAX_CURVES", "OVERLAY_BUDGET", "local_slopes",
]

#: at most this many kernels overlaid in one request
MAX_CURVES = limits.MAX_CURVES
#: cost cap of the finite-width overlay, width · n_samples · (L − 1): about 2.5 s on a
#: 2-core laptop at 41 points, so a slider move never queues minutes of work
OVERLAY_BUDGET = 1 << 18
#: near u = 1, 2κ(1) − 2κ(1 − ε) ≈ (2√2/π) ε^{1/2} for the two-layer ReLU NTK
HOLDER_GUIDE = ("(2√2/π) √ε  (Hölder-½)", 2.0 * math.sqrt(2.0) / math.pi, 0.5)
#: and ≈ 2ε for κ1 (1-Lipschitz feature map, ‖x − y‖² = 2ε)
LIPSCHITZ_GUIDE = ("2ε  (Lipschitz)", 2.0, 1.0)


def _specs(specs) -> tuple:
    """A non-empty tuple of ``KernelSpec`` (each valid by construction: not checked again)."""
    from ntkviz.core import KernelSpec

    if isinstance(specs, KernelSpec):
        specs = (specs,)
    try:
        specs = tuple(specs)
    except TypeError:
        raise ValueError(f"specs must be a sequence of KernelSpec, got {type(specs).__name__}")
    if not 1 <= len(specs) <= MAX_CURVES:
        raise ValueError(f"specs must hold 1 to {MAX_CURVES} kernels, got {len(specs)}")
    out = []
    for i, s in enumerate(specs):
        if not isinstance(s, KernelSpec):
            raise ValueError(f"specs[{i}] must be a KernelSpec, got {type(s).__name__}")
        out.append(s)
    return tuple(out)


def _readonly(*arrays):
    out = []
    for a in arrays:
        a = np.array(a, dtype=np.float64, copy=True)
        a.setflags(write=False)
        out.append(a)
    return out if len(out) > 1 else out[0]


# --------------------------------------------------------------- kernel curves
@dataclass(frozen=True)
class KernelCurve:
    """One kernel on the u-grid: ``value = κ(u)``; ``derivative = κ'(u)`` (±inf where
    infinite) or ``None`` when not requested; ``value_at_one = κ(1)``."""

    label: str
    spec: object
    value: np.ndarray
    derivative: np.ndarray | None
    value_at_one: float


@dataclass(frozen=True)
class NearOneCurves:
    """Behaviour near u = 1: ``gap[i] = 2κ_i(1) − 2κ_i(1 − ε)`` on ``eps`` (log-spaced),
    i.e. ``‖Φ(x) − Φ(y)‖²`` for unit ``x, y`` with ``‖x − y‖² = 2ε`` (``inf`` for a kernel
    infinite at u = 1, the step-activation NTK: no such feature map); ``guides`` are
    ``(label, C, exponent, values = C ε^exponent)``."""

    eps: np.ndarray
    gap: tuple[np.ndarray, ...]
    guides: tuple[tuple[str, float, float, np.ndarray], ...]


@dataclass(frozen=True)
class EmpiricalOverlay:
    """Finite-width kernels of ``n_samples`` random networks against the limit ``reference``.

    ``samples`` has shape ``(n_samples, len(u))``; ``mean``/``std`` over samples
    (std is 0 for one sample); ``limit`` is the infinite-width kernel on ``u``."""

    label: str
    kind: str
    u: np.ndarray
    samples: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    limit: np.ndarray
    width: int
    seed: int


@dataclass(frozen=True)
class KernelCurveResponse:
    """Everything the kernel-curve panel draws (see :class:`KernelCurveRequest`)."""

    request: "KernelCurveRequest"
    u: np.ndarray
    curves: tuple[KernelCurve, ...]
    near_one: NearOneCurves | None
    empirical: EmpiricalOverlay | None

    def csv_table(self, view: str = "curves") -> tuple[list[str], list[list]]:
        """``(header, rows)`` of a view: ``"curves"`` (u, κ_i, κ_i' if requested, and
        the finite-width mean at the overlay's points, blank elsewhere) or
        ``"near_one"`` (ε, the gaps and the guides)."""
        if view == "curves":
            header = ["u"] + [f"{c.label}" for c in self.curves]
            cols = [self.u] + [c.value for c in self.curves]
            if self.request.derivative:
                header += [f"d/du {c.label}" for c in self.curves]
                cols += [c.derivative for c in self.curves]
            rows = [list(map(float, r)) for r in zip(*cols)]
            if self.empirical is not None:  # its own (shorter) u grid, padded with blanks
                e = self.empirical
                header += ["u (overlay)", f"{e.label} mean", f"{e.label} std"]
                for i, row in enumerate(rows):
                    row += ([float(e.u[i]), float(e.mean[i]), float(e.std[i])]
                            if i < len(e.u) else ["", "", ""])
            return header, rows
        if view == "near_one":
            if self.near_one is None:
                raise ValueError("view near_one needs a request with near_one=True")
            n = self.near_one
            header = ["eps = 1 - u"] + [
                f"2k(1)-2k(1-eps) {c.label}" + ("" if math.isfinite(c.value_at_one)
                                                else " (undefined: k(1) infinite)")
                for c in self.curves]
            header += [g[0] for g in n.guides]
            cols = [n.eps, *n.gap, *(g[3] for g in n.guides)]
            # a kernel infinite at u = 1 (step-activation NTK) has no gap: empty cells
            return header, [[_finite_or_blank(v) for v in r] for r in zip(*cols)]
        raise ValueError(f"view must be one of curves, near_one; got {view!r}")


@dataclass(frozen=True)
class KernelCurveRequest:
    """Kernel curves κ(u) on ``[-1, 1]`` for several kernels, with options.

    Parameters
    ----------
    specs : sequence of KernelSpec
        1 to ``MAX_CURVES`` kernels (validated; see ``ntkviz.core.KernelSpec``).
    n_points : int
        Grid size on ``[-1, 1]`` (equally spaced, both ends included), 3..20001.
    derivative : bool
        Also return ``κ'(u)`` (= d/du; ±inf where infinite, e.g. NTK at u = ±1).
    near_one : bool
        Also return ``2κ(1) − 2κ(1 − ε)`` on ``n_near`` log-spaced ε in
        ``[eps_min, 1]``, with the guides (2√2/π) ε^½ (two-layer NTK, Hölder-½)
        and 2ε (κ1, Lipschitz).
    width : int or None
        Finite-width overlay: hidden width ``m`` (1..65536) of random networks whose
        empirical kernels are drawn against the limit of the first NTK/NNGP curve
        (same depth, activation, bias and normalisation); ``None`` = no overlay.
    seed, n_samples, n_overlay_points : int
        Overlay random seed (>= 0), number of networks (1..64), number of u points
        (3..401) at which the empirical kernels are evaluated.
    """

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = False

    specs: tuple = field(default_factory=tuple)
    n_points: int = 801
    derivative: bool = False
    near_one: bool = False
    eps_min: float = 1e-8
    n_near: int = 241
    width: int | None = None
    seed: int = 0
    n_samples: int = 1
    n_overlay_points: int = 41

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "specs", _specs(self.specs))
        set_(self, "n_points", check_int("n_points", self.n_points, limits.CURVE_POINTS_RANGE))
        set_(self, "derivative", bool(self.derivative))
        set_(self, "near_one", bool(self.near_one))
        set_(self, "eps_min", check_float("eps_min", self.eps_min, limits.NEAR_ONE_EPS_RANGE))
        set_(self, "n_near", check_int("n_near", self.n_near, limits.NEAR_ONE_POINTS_RANGE))
        if self.width is not None:
            set_(self, "width", check_int("width", self.width, limits.NET_WIDTH_RANGE))
            self.overlay_spec()  # raises if no curve can be compared
        set_(self, "seed", check_int("seed", self.seed, limits.SEED_RANGE))
        set_(self, "n_samples", check_int("n_samples", self.n_samples, limits.NET_SAMPLES_RANGE))
        set_(self, "n_overlay_points", check_int("n_overlay_points", self.n_overlay_points,
                                                 limits.OVERLAY_POINTS_RANGE))
        if self.width is not None:
            depth = self.overlay_spec().depth
            cost = self.width * self.n_samples * (depth - 1) * (self.n_overlay_points / 41) ** 2
            if cost > OVERLAY_BUDGET:
                raise ValueError(
                    f"finite-width overlay too costly: width · samples · (L − 1) = "
                    f"{self.width} · {self.n_samples} · {depth - 1} must be <= {OVERLAY_BUDGET}; "
                    f"use fewer samples or a smaller width")

    def overlay_spec(self):
        """The spec the finite-width overlay is compared with (the first NTK/NNGP)."""
        for s in self.specs:
            if s.name in ("ntk", "nngp"):
                return s
        raise ValueError("the finite-width overlay (width) needs an NTK or NNGP curve "
                         "among the kernels")

    def __call__(self) -> KernelCurveResponse:
        from ntkviz.core import evaluate_kernel, kernel_at_one

        u = _readonly(np.linspace(-1.0, 1.0, self.n_points))
        curves = []
        for s in self.specs:  # the grid is made here: its check is skipped
            value, deriv = evaluate_kernel(s, u, check_input=False)
            curves.append(KernelCurve(
                label=s.label, spec=s, value=_readonly(value),
                derivative=_readonly(deriv) if self.derivative else None,
                value_at_one=kernel_at_one(s)))
        near = self._near_one(curves) if self.near_one else None
        emp = self._empirical() if self.width is not None else None
        return KernelCurveResponse(self, u, tuple(curves), near, emp)

    def _near_one(self, curves) -> NearOneCurves:
        from ntkviz.core import evaluate_kernel

        u = 1.0 - np.logspace(np.log10(self.eps_min), 0.0, self.n_near)
        eps = 1.0 - u  # exact (Sterbenz): the ε actually evaluated
        gaps = []
        for c in curves:
            value, _ = evaluate_kernel(c.spec, u, check_input=False)
            gaps.append(_readonly(2.0 * c.value_at_one - 2.0 * np.asarray(value)))
        guides = tuple((lab, C, e, _readonly(C * eps ** e)) for lab, C, e in
                       (HOLDER_GUIDE, LIPSCHITZ_GUIDE))
        return NearOneCurves(_readonly(eps), tuple(gaps), guides)

    def _empirical(self) -> EmpiricalOverlay:
        from ntkviz.core import empirical_kernels, evaluate_kernel, kernel_at_one

        spec = self.overlay_spec()
        u = np.linspace(-1.0, 1.0, self.n_overlay_points)
        emp = empirical_kernels(u, self.width, spec.depth, self.seed, self.n_samples,
                                activation=spec.activation, bias=spec.bias, check_input=False)
        samples = np.atleast_2d(np.asarray(emp.ntk if spec.name == "ntk" else emp.nngp,
                                           dtype=np.float64))
        if spec.normalize:
            samples = samples / kernel_at_one(replace(spec, normalize=False))
        limit, _ = evaluate_kernel(spec, u, check_input=False)
        return EmpiricalOverlay(
            label=f"empirical {spec.name.upper()} m={self.width}", kind=spec.name,
            u=_readonly(u), samples=_readonly(samples), mean=_readonly(samples.mean(axis=0)),
            std=_readonly(samples.std(axis=0)), limit=_readonly(limit), width=self.width,
            seed=self.seed)


# ------------------------------------------------------------------ spectrum
@dataclass(frozen=True)
class GuideLine:
    """The asymptote ``C k^exponent`` of kernel number ``kernel_index`` of the request, from
    ``decay_guides``, on ``k = 1..kmax``: ``log10_values`` of C k^exponent (from the
    closed-form constant: finite far beyond the float64 range) and ``weighted_log10_values``
    of N(p, k) C k^exponent (what the multiplicity-weighted view plots)."""

    label: str
    C: float
    exponent: float
    k: np.ndarray
    log10_values: np.ndarray
    weighted_log10_values: np.ndarray
    kernel_index: int = 0

    def log10_of(self, weighted: bool) -> np.ndarray:
        """log10 of the guide of the plotted quantity (μ_k, or N(p, k) μ_k when ``weighted``)."""
        return self.weighted_log10_values if weighted else self.log10_values


@dataclass(frozen=True)
class SpectrumSeries:
    """One kernel's spectrum, as the panel draws it and the CSV writes it.

    Each k is in exactly one class: ``shown`` (μ_k > 0 and resolved), ``zero`` (exact zero
    of the kernel, e.g. odd k >= 3 for the two-layer NTK; drawn as markers on the axis),
    or ``unresolved`` (error estimate above ``rel_tol μ_k``, or μ_k not a positive finite
    value without being an exact zero). ``untrusted`` marks the degrees k >= 1 drawn as
    "not trustworthy": unresolved, or whose ``log10_mu`` the core does not vouch for
    (``log10_trustworthy`` false), exact zeros excepted; the curve's line joins only
    the other shown degrees.

    Log space (values far below 1e-308 or above 1e308): ``log10_mu`` (−inf at exact zeros
    and unresolved points) and ``log10_multiplicity`` (from exact integers);
    :meth:`log10_y` is log10 of the plotted value, μ_k or N(p, k) μ_k. ``trustworthy``
    marks the degrees whose float64 ``mu`` the core vouches for (not underflowed either).

    ``slope_k``/``slope`` is the local log–log slope log(μ_{k+2}/μ_k)/log((k+2)/k) between
    two shown, trusted degrees of equal parity, placed at k + 1;
    ``weighted_slope_k``/``weighted_slope`` the same for N(p, k) μ_k.
    """

    label: str
    spec: object
    k: np.ndarray
    multiplicity: np.ndarray
    mu: np.ndarray
    error_estimate: np.ndarray
    shown: np.ndarray
    zero: np.ndarray
    unresolved: np.ndarray
    untrusted: np.ndarray
    slope_k: np.ndarray
    slope: np.ndarray
    weighted_slope_k: np.ndarray
    weighted_slope: np.ndarray
    method: str
    log10_mu: np.ndarray
    log10_multiplicity: np.ndarray
    trustworthy: np.ndarray
    log10_trustworthy: np.ndarray
    relative_error: np.ndarray

    def log10_y(self, weighted: bool = False) -> np.ndarray:
        """log10 of the plotted value of every degree: log10 μ_k, or log10 N(p, k) μ_k
        when ``weighted`` (−inf where μ_k is 0 or unresolved)."""
        return self.log10_mu + self.log10_multiplicity if weighted else self.log10_mu

    def y(self, weighted: bool = False) -> np.ndarray:
        """The plotted value: ``mu`` (0 where it is not a positive value), or N(p, k) μ_k
        as ``10^log10_y`` where float64 represents it (0 or inf beyond); exactly 0 at exact
        zeros."""
        if not weighted:
            return np.where(np.isfinite(self.log10_mu), self.mu, 0.0)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            out = np.power(10.0, self.log10_y(weighted))
        out[self.zero] = 0.0
        return out

    def slopes(self, weighted: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``(k + 1, slope)`` of the plotted quantity (see the class notes)."""
        return (self.weighted_slope_k, self.weighted_slope) if weighted else (self.slope_k,
                                                                              self.slope)


@dataclass(frozen=True)
class SpectrumResponse:
    """Everything the eigenvalue-decay panel draws (see :class:`SpectrumRequest`)."""

    request: "SpectrumRequest"
    series: tuple[SpectrumSeries, ...]
    guides: tuple[GuideLine, ...]

    def csv_table(self, view: str = "spectrum", weighted: bool = False
                  ) -> tuple[list[str], list[list]]:
        """``(header, rows)`` of a view, for μ_k or, ``weighted``, N(p, k) μ_k.

        ``"spectrum"``: one row per (kernel, k) with the status (shown / zero /
        unresolved), ``N(p,k)`` as an exact integer (beyond float64 at large p and k: read it
        as text, or use ``log10_N(p,k)``), ``y_plotted`` (μ_k or N(p, k) μ_k), ``log10_mu``
        (finite far below 1e-308; an empty cell at exact zeros and unresolved points),
        ``trustworthy`` (the float64 ``mu_k`` is vouched for), ``log10_trustworthy``
        (``log10_mu`` is vouched for, also where ``mu_k`` underflows) and ``log10_N(p,k)``;
        ``"slope"``: one row per local slope drawn."""
        if view == "spectrum":
            from ntkviz.core.spectra.harmonics import exact_multiplicities, log10_multiplicity

            header = ["kernel", "p", "k", "N(p,k)", "mu_k", "error_estimate", "y_plotted", "status",
                      "log10_mu", "trustworthy", "log10_trustworthy", "log10_N(p,k)"]
            rows = []
            for s in self.series:
                status = np.where(s.zero, "zero", np.where(s.unresolved, "unresolved", "shown"))
                exact = exact_multiplicities(self.request.dim, int(s.k.max()))
                y = s.y(weighted)
                logs = log10_multiplicity(self.request.dim, s.k)
                for i in range(len(s.k)):
                    rows.append([s.label, self.request.dim, int(s.k[i]), exact[int(s.k[i])],
                                 float(s.mu[i]), float(s.error_estimate[i]), float(y[i]),
                                 str(status[i]), _finite_or_blank(s.log10_mu[i]),
                                 bool(s.trustworthy[i]), bool(s.log10_trustworthy[i]),
                                 float(logs[i])])
            return header, rows
        if view == "slope":
            header = ["kernel", "k_mid", "local_slope"]
            return header, [[s.label, float(k), float(v)] for s in self.series
                            for k, v in zip(*s.slopes(weighted))]
        raise ValueError(f"view must be one of spectrum, slope; got {view!r}")


def _finite_or_blank(value) -> float | str:
    """A CSV cell: the number, or an empty cell where it is not finite (log10 of 0)."""
    value = float(value)
    return value if math.isfinite(value) else ""


def local_slopes(k: np.ndarray, y: np.ndarray, shown: np.ndarray,
                 logged: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Slopes ``log(y[k+2]/y[k]) / log((k+2)/k)`` where both are shown and ``k >= 1``,
    placed at ``k + 1`` (pairs of equal parity, so parity zeros do not break it).
    ``logged``: ``y`` holds log10 of the values (far below 1e-308 too)."""
    k = np.asarray(k, dtype=np.float64)
    if len(k) < 3:
        return np.empty(0), np.empty(0)
    k0, k2 = k[:-2], k[2:]
    ok = shown[:-2] & shown[2:] & (k0 >= 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if logged:
            s = (y[2:] - y[:-2]) / np.log10(k2 / k0)
        else:
            s = np.log(y[2:] / y[:-2]) / np.log(k2 / k0)
    ok &= np.isfinite(s)
    return k0[ok] + 1.0, s[ok]


@dataclass(frozen=True)
class SpectrumRequest:
    """Mercer eigenvalues ``μ_k``, ``k = 0..kmax``, of kernels on ``S^{p-1}``.

    Parameters
    ----------
    specs : sequence of KernelSpec
        1 to ``MAX_CURVES`` kernels.
    dim : int
        Input dimension ``p`` (sphere ``S^{p-1}``), 2..1000.
    kmax : int
        Largest degree, 1..2000.
    rel_tol : float
        A point is *unresolved* when ``error_estimate > rel_tol · |μ_k|``.

    The response holds μ_k and N(p, k) μ_k alike (the panel's weighting only redraws).
    """

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = False

    specs: tuple = field(default_factory=tuple)
    dim: int = 3
    kmax: int = 100
    rel_tol: float = 1e-2

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "specs", _specs(self.specs))
        set_(self, "dim", check_int("dim", self.dim, limits.DIM_RANGE))
        set_(self, "kmax", check_int("kmax", self.kmax, limits.SPECTRUM_KMAX_RANGE))
        set_(self, "rel_tol", check_float("rel_tol", self.rel_tol, (0.0, 1.0)))

    def __call__(self) -> SpectrumResponse:
        return run_to_end(self.iterate())

    def iterate(self):
        """Compute kernel by kernel: yields a :class:`~ntkviz.jobs.Progress` after each
        kernel but the last (stop iterating to cancel between kernels) and returns the
        response. A kernel whose expansions are new (depth, bias or activation changed)
        can take a second or two (49 Hermite-series layers); a new ``dim`` or ``kmax``
        reuses them."""
        from ntkviz.core import mercer_spectrum

        series = []
        for i, s in enumerate(self.specs):  # dim and kmax checked in __post_init__
            series.append(self._series(mercer_spectrum(s, self.dim, self.kmax, check_input=False), s))
            if i + 1 < len(self.specs):
                yield Progress((i + 1) / len(self.specs), f"{s.label} done")
        return self._response(series)

    def _response(self, series) -> SpectrumResponse:
        from ntkviz.core import decay_guides

        kg = np.arange(1, self.kmax + 1, dtype=np.float64)
        log10_n = series[0].log10_multiplicity[1:]
        guides, seen = [], set()
        for index, s in enumerate(self.specs):
            for label, C, exponent in decay_guides(s, self.dim, check_input=False):
                if (label, C, exponent) in seen:
                    continue
                seen.add((label, C, exponent))
                with np.errstate(divide="ignore", invalid="ignore"):
                    log10_values = np.log10(C) + exponent * np.log10(kg)
                guides.append(GuideLine(label, float(C), float(exponent), _readonly(kg),
                                        _readonly(log10_values),
                                        _readonly(log10_values + log10_n), index))
        return SpectrumResponse(self, tuple(series), tuple(guides))

    def _series(self, sp, spec) -> SpectrumSeries:
        k, n, mu, err = _readonly(sp.k, sp.multiplicity, sp.mu, sp.error_estimate)
        zero = np.asarray(sp.exact_zero, dtype=bool).copy()
        log10_mu = _readonly(sp.log10_mu)
        log10_n = _readonly(sp.log10_multiplicity)
        bad = ~np.isfinite(log10_mu) | ~(sp.relative_error <= self.rel_tol)
        unresolved = bad & ~zero
        shown = ~zero & ~unresolved
        trust = np.asarray(sp.trustworthy, dtype=bool).copy()
        log_trust = np.asarray(sp.log10_trustworthy, dtype=bool).copy()
        untrusted = (unresolved | ~log_trust) & ~zero & (np.asarray(sp.k) >= 1)
        drawn = shown & ~untrusted
        slope_k, slope = local_slopes(k, log10_mu, drawn, logged=True)
        wslope_k, wslope = local_slopes(k, log10_mu + log10_n, drawn, logged=True)
        for a in (zero, unresolved, shown, untrusted, trust, log_trust):
            a.setflags(write=False)
        return SpectrumSeries(
            label=spec.label, spec=spec, k=k, multiplicity=n, mu=mu, error_estimate=err,
            shown=shown, zero=zero, unresolved=unresolved, untrusted=untrusted,
            slope_k=_readonly(slope_k), slope=_readonly(slope),
            weighted_slope_k=_readonly(wslope_k), weighted_slope=_readonly(wslope),
            method=str(sp.method), log10_mu=log10_mu, log10_multiplicity=log10_n,
            trustworthy=trust, log10_trustworthy=log_trust,
            relative_error=_readonly(sp.relative_error))
