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

import numpy as np

from ntkviz.core._validate import check_float, check_int

__all__ = [
    "KernelCurveRequest", "KernelCurveResponse", "KernelCurve", "NearOneCurves",
    "EmpiricalOverlay", "SpectrumRequest", "SpectrumResponse", "SpectrumSeries", "GuideLine",
    "SpectrumProgress",
    "HOLDER_GUIDE", "LIPSCHITZ_GUIDE", "MAX_CURVES", "OVERLAY_BUDGET", "KERNEL_CHOICES",
    "specs_from_choice", "parse_depths", "local_slopes",
]

#: at most this many kernels overlaid in one request
MAX_CURVES = 8
#: cost cap of the finite-width overlay, width · n_samples · (L − 1): about 2.5 s on a
#: 2-core laptop at 41 points, so a slider move never queues minutes of work
OVERLAY_BUDGET = 1 << 18
#: near u = 1, 2κ(1) − 2κ(1 − ε) ≈ (2√2/π) ε^{1/2} for the two-layer ReLU NTK
HOLDER_GUIDE = ("(2√2/π) √ε  (Hölder-½)", 2.0 * math.sqrt(2.0) / math.pi, 0.5)
#: and ≈ 2ε for κ1 (1-Lipschitz feature map, ‖x − y‖² = 2ε)
LIPSCHITZ_GUIDE = ("2ε  (Lipschitz)", 2.0, 1.0)


def _specs(specs) -> tuple:
    """Validate a non-empty sequence of ``KernelSpec`` (returned validated, as a tuple)."""
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
        out.append(s.validated())
    return tuple(out)


#: kernel families offered by the panels and the CLI
KERNEL_CHOICES = ("arccos0", "arccos1", "ntk", "nngp")


def parse_depths(text) -> list[int]:
    """``"3, 5"`` (or a sequence of ints) -> ``[3, 5]``; ``ValueError`` naming the field."""
    tokens = text.replace(";", ",").split(",") if isinstance(text, str) else list(text)
    out = []
    for tok in tokens:
        tok = str(tok).strip()
        if not tok:
            continue
        try:
            d = int(tok)
        except ValueError:
            raise ValueError(f"extra depths must be integers separated by commas, got {tok!r}")
        if not 2 <= d <= 50:
            raise ValueError(f"extra depths must be in [2, 50], got {d}")
        out.append(d)
    return out


def specs_from_choice(kernels, depth: int = 2, extra_depths="", bias: float = 0.0,
                      activation: str = "relu", normalize: bool = False) -> tuple:
    """The ``KernelSpec`` tuple for a panel's kernel choice (also used by the CLI).

    ``kernels`` is a subset of :data:`KERNEL_CHOICES`; κ0/κ1 ignore depth, bias and
    activation (they are single dual maps); NTK/NNGP get one spec per depth in
    ``[depth] + extra_depths`` (duplicates dropped), in that order."""
    from ntkviz.core import KernelSpec

    if isinstance(kernels, str):
        kernels = [k.strip() for k in kernels.split(",") if k.strip()]
    for k in kernels:
        if k not in KERNEL_CHOICES:
            raise ValueError(f"kernels must be among {', '.join(KERNEL_CHOICES)}; got {k!r}")
    depths = [check_int("depth", depth, 2, 50)]
    for d in parse_depths(extra_depths):
        if d not in depths:
            depths.append(d)
    out = []
    for name in KERNEL_CHOICES:
        if name not in kernels:
            continue
        if name.startswith("arccos"):
            out.append(KernelSpec(name=name, depth=2, bias=0.0, activation="relu",
                                  normalize=bool(normalize)))
            continue
        for d in depths:
            out.append(KernelSpec(name=name, depth=d, bias=float(bias), activation=str(activation),
                                  normalize=bool(normalize)))
    if not out:
        raise ValueError("kernels: choose at least one of κ0, κ1, NTK, NNGP")
    return tuple(out)


def _state_specs(state: dict) -> tuple:
    return specs_from_choice(
        state.get("kernels", ("ntk", "arccos1")), state.get("depth", 2),
        state.get("extra_depths", ""), state.get("bias", 0.0), state.get("activation", "relu"),
        state.get("normalize", False))


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
        set_(self, "n_points", check_int("n_points", self.n_points, 3, 20001))
        set_(self, "derivative", bool(self.derivative))
        set_(self, "near_one", bool(self.near_one))
        set_(self, "eps_min", check_float("eps_min", self.eps_min, 1e-15, 0.1))
        set_(self, "n_near", check_int("n_near", self.n_near, 2, 20001))
        if self.width is not None:
            set_(self, "width", check_int("width", self.width, 1, 65536))
            self.overlay_spec()  # raises if no curve can be compared
        set_(self, "seed", check_int("seed", self.seed, 0, 2**32 - 1))
        set_(self, "n_samples", check_int("n_samples", self.n_samples, 1, 64))
        set_(self, "n_overlay_points", check_int("n_overlay_points", self.n_overlay_points, 3, 401))
        if self.width is not None:
            depth = self.overlay_spec().depth
            cost = self.width * self.n_samples * (depth - 1) * (self.n_overlay_points / 41) ** 2
            if cost > OVERLAY_BUDGET:
                raise ValueError(
                    f"finite-width overlay too costly: width · samples · (L − 1) = "
                    f"{self.width} · {self.n_samples} · {depth - 1} must be <= {OVERLAY_BUDGET}; "
                    f"use fewer samples or a smaller width")

    @classmethod
    def from_state(cls, state: dict) -> "KernelCurveRequest":
        """The request for a kernel-curve panel state (``QtKernelCurvesPanel.state()``;
        missing keys take the panel defaults)."""
        return cls(specs=_state_specs(state), n_points=state.get("n_points", 801),
                   derivative=state.get("derivative", False),
                   near_one=state.get("near_one", True),
                   width=state.get("width", 100) if state.get("overlay", False) else None,
                   seed=state.get("seed", 0), n_samples=state.get("n_samples", 4))

    def overlay_spec(self):
        """The spec the finite-width overlay is compared with (the first NTK/NNGP)."""
        for s in self.specs:
            if s.name in ("ntk", "nngp"):
                return s
        raise ValueError("the finite-width overlay (width) needs an NTK or NNGP curve "
                         "among the kernels")

    def __call__(self) -> KernelCurveResponse:
        from ntkviz.core.kernels.dotkernel import _evaluate_kernel, _kernel_at_one

        u = _readonly(np.linspace(-1.0, 1.0, self.n_points))
        curves = []
        for s in self.specs:  # validated in __post_init__: the unchecked core functions
            value, deriv = _evaluate_kernel(s, u)
            curves.append(KernelCurve(
                label=s.label, spec=s, value=_readonly(value),
                derivative=_readonly(deriv) if self.derivative else None,
                value_at_one=_kernel_at_one(s)))
        near = self._near_one(curves) if self.near_one else None
        emp = self._empirical() if self.width is not None else None
        return KernelCurveResponse(self, u, tuple(curves), near, emp)

    def _near_one(self, curves) -> NearOneCurves:
        from ntkviz.core.kernels.dotkernel import _evaluate_kernel

        u = 1.0 - np.logspace(np.log10(self.eps_min), 0.0, self.n_near)
        eps = 1.0 - u  # exact (Sterbenz): the ε actually evaluated
        gaps = []
        for c in curves:
            value, _ = _evaluate_kernel(c.spec, u)
            gaps.append(_readonly(2.0 * c.value_at_one - 2.0 * np.asarray(value)))
        guides = tuple((lab, C, e, _readonly(C * eps ** e)) for lab, C, e in
                       (HOLDER_GUIDE, LIPSCHITZ_GUIDE))
        return NearOneCurves(_readonly(eps), tuple(gaps), guides)

    def _empirical(self) -> EmpiricalOverlay:
        from ntkviz.core.kernels.dotkernel import _evaluate_kernel, _kernel_at_one
        from ntkviz.core.kernels.empirical import _empirical_kernels

        spec = self.overlay_spec()
        u = np.linspace(-1.0, 1.0, self.n_overlay_points)
        emp = _empirical_kernels(u, self.width, spec.depth, self.seed, self.n_samples,
                                 spec.activation, spec.bias, "pairwise")
        samples = np.atleast_2d(np.asarray(emp.ntk if spec.name == "ntk" else emp.nngp,
                                           dtype=np.float64))
        if spec.normalize:
            samples = samples / _kernel_at_one(replace(spec, normalize=False))
        limit, _ = _evaluate_kernel(spec, u)
        return EmpiricalOverlay(
            label=f"empirical {spec.name.upper()} m={self.width}", kind=spec.name,
            u=_readonly(u), samples=_readonly(samples), mean=_readonly(samples.mean(axis=0)),
            std=_readonly(samples.std(axis=0)), limit=_readonly(limit), width=self.width,
            seed=self.seed)


# ------------------------------------------------------------------ spectrum
@dataclass(frozen=True)
class GuideLine:
    """``values = C k^exponent`` (times ``N(p, k)`` when weighted) on ``k``, from
    ``decay_guides`` of kernel number ``kernel_index`` of the request."""

    label: str
    C: float
    exponent: float
    k: np.ndarray
    values: np.ndarray
    kernel_index: int = 0


@dataclass(frozen=True)
class SpectrumSeries:
    """One kernel's spectrum as plotted.

    ``y = μ_k`` (or ``N(p, k) μ_k`` when weighted). Each k is in exactly one class:
    ``shown`` (y > 0 and reliable; drawn on the log–log curve), ``zero`` (exact zero
    of the kernel, e.g. odd k >= 3 for the two-layer NTK; drawn as markers on the
    axis), or ``unresolved`` (error estimate above ``rel_tol |μ_k|``, or μ_k <= 0 or
    not finite without being an exact zero; drawn with a distinct symbol).
    ``slope_k``/``slope`` is the local log–log slope between k and k + 2 (same
    parity, both shown), placed at k + 1.

    Log space (values far below 1e-308 or above 1e308): ``log10_mu`` (−inf at exact
    zeros and unresolved points), ``log10_multiplicity`` (from exact integers) and
    ``log10_y`` (what is plotted, in log10); ``log10_trustworthy`` marks the degrees whose
    ``log10_mu`` the core vouches for (estimated relative error <= 1e-6, exact zeros
    included), ``trustworthy`` those whose float64 ``mu`` it vouches for as well (not
    underflowed); ``y`` is ``10^log10_y`` where representable (0 or inf beyond).
    """

    label: str
    spec: object
    k: np.ndarray
    multiplicity: np.ndarray
    mu: np.ndarray
    error_estimate: np.ndarray
    y: np.ndarray
    shown: np.ndarray
    zero: np.ndarray
    unresolved: np.ndarray
    slope_k: np.ndarray
    slope: np.ndarray
    method: str
    log10_mu: np.ndarray | None = None
    log10_multiplicity: np.ndarray | None = None
    log10_y: np.ndarray | None = None
    trustworthy: np.ndarray | None = None
    relative_error: np.ndarray | None = None
    log10_trustworthy: np.ndarray | None = None


@dataclass(frozen=True)
class SpectrumProgress:
    """One step of :meth:`SpectrumRequest.iterate`: ``fraction`` done in [0, 1]; the last
    item carries the ``response``."""

    fraction: float
    response: "SpectrumResponse | None" = None


@dataclass(frozen=True)
class SpectrumResponse:
    """Everything the eigenvalue-decay panel draws (see :class:`SpectrumRequest`)."""

    request: "SpectrumRequest"
    series: tuple[SpectrumSeries, ...]
    guides: tuple[GuideLine, ...]

    def csv_table(self, view: str = "spectrum") -> tuple[list[str], list[list]]:
        """``(header, rows)``: ``"spectrum"`` one row per (kernel, k) with the status
        (shown / zero / unresolved), ``N(p,k)`` as an exact integer (beyond float64 at large
        p and k: read it as text, or use ``log10_N(p,k)``), ``log10_mu`` (finite far below
        1e-308; an empty cell at exact zeros and unresolved points), ``trustworthy`` and
        ``log10_N(p,k)``;
        or ``"slope"`` one row per local slope."""
        if view == "spectrum":
            from ntkviz.core.spectra.harmonics import exact_multiplicities, log10_multiplicity

            header = ["kernel", "p", "k", "N(p,k)", "mu_k", "error_estimate", "y_plotted", "status",
                      "log10_mu", "trustworthy", "log10_N(p,k)"]
            rows = []
            for s in self.series:
                status = np.where(s.zero, "zero", np.where(s.unresolved, "unresolved", "shown"))
                exact = exact_multiplicities(self.request.dim, int(s.k.max()))
                logs = log10_multiplicity(self.request.dim, s.k)
                for i in range(len(s.k)):
                    rows.append([s.label, self.request.dim, int(s.k[i]), exact[int(s.k[i])],
                                 float(s.mu[i]), float(s.error_estimate[i]), float(s.y[i]),
                                 str(status[i]), _finite_or_blank(s.log10_mu[i]),
                                 bool(s.trustworthy[i]), float(logs[i])])
            return header, rows
        if view == "slope":
            header = ["kernel", "k_mid", "local_slope"]
            return header, [[s.label, float(k), float(v)] for s in self.series
                            for k, v in zip(s.slope_k, s.slope)]
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
    weighted : bool
        Plot ``N(p, k) μ_k`` (the share of ``κ(1)`` carried by degree k) instead of ``μ_k``.
    rel_tol : float
        A point is *unresolved* when ``error_estimate > rel_tol · |μ_k|``.
    """

    specs: tuple = field(default_factory=tuple)
    dim: int = 3
    kmax: int = 100
    weighted: bool = False
    rel_tol: float = 1e-2

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "specs", _specs(self.specs))
        set_(self, "dim", check_int("dim", self.dim, 2, 1000))
        set_(self, "kmax", check_int("kmax", self.kmax, 1, 2000))
        set_(self, "weighted", bool(self.weighted))
        set_(self, "rel_tol", check_float("rel_tol", self.rel_tol, 0.0, 1.0))

    @classmethod
    def from_state(cls, state: dict) -> "SpectrumRequest":
        """The request for a spectrum panel state (``QtSpectrumPanel.state()``)."""
        return cls(specs=_state_specs(state), dim=state.get("dim", 3),
                   kmax=state.get("kmax", 100), weighted=state.get("weighted", False))

    def __call__(self) -> SpectrumResponse:
        item = None
        for item in self.iterate():
            pass
        return item.response

    def iterate(self):
        """Compute kernel by kernel: yields :class:`SpectrumProgress` after each kernel
        (``fraction`` done; stop iterating to cancel between kernels), the last item with the
        response. A kernel whose expansions are new (depth, bias or activation changed) can
        take a second or two (49 Hermite-series layers); a new ``dim`` or ``kmax`` reuses them."""
        from ntkviz.core.spectra.mercer import _mercer_spectrum

        series = []
        for i, s in enumerate(self.specs):  # validated in __post_init__: the unchecked route
            series.append(self._series(_mercer_spectrum(s, self.dim, self.kmax), s))
            if i + 1 < len(self.specs):
                yield SpectrumProgress((i + 1) / len(self.specs))
        yield SpectrumProgress(1.0, self._response(series))

    def _response(self, series) -> SpectrumResponse:
        from ntkviz.core.spectra.harmonics import _multiplicity_table
        from ntkviz.core.spectra.mercer import _decay_guides

        kg = np.arange(1, self.kmax + 1, dtype=np.float64)
        weight = _multiplicity_table(self.dim, self.kmax)[1:] if self.weighted else 1.0
        guides, seen = [], set()
        for index, s in enumerate(self.specs):
            for label, C, exponent in _decay_guides(s, self.dim):
                if (label, C, exponent) in seen:
                    continue
                seen.add((label, C, exponent))
                with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                    values = C * kg ** exponent * weight
                guides.append(GuideLine(label, float(C), float(exponent), _readonly(kg),
                                        _readonly(values), index))
        return SpectrumResponse(self, tuple(series), tuple(guides))

    def _series(self, sp, spec) -> SpectrumSeries:
        k, n, mu, err = _readonly(sp.k, sp.multiplicity, sp.mu, sp.error_estimate)
        zero = np.asarray(sp.exact_zero, dtype=bool).copy()
        log10_mu = _readonly(sp.log10_mu)
        log10_n = _readonly(sp.log10_multiplicity)
        log10_y = _readonly(log10_mu + log10_n if self.weighted else log10_mu)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            y = np.power(10.0, log10_y)
        y[zero] = 0.0
        bad = ~np.isfinite(log10_y) | ~(sp.relative_error <= self.rel_tol)
        unresolved = bad & ~zero
        shown = ~zero & ~unresolved
        slope_k, slope = local_slopes(k, log10_y, shown, logged=True)
        trust = np.asarray(sp.trustworthy, dtype=bool).copy()
        log_trust = np.asarray(sp.log10_trustworthy, dtype=bool).copy()
        for a in (zero, unresolved, shown, trust, log_trust):
            a.setflags(write=False)
        return SpectrumSeries(
            label=spec.label, spec=spec, k=k, multiplicity=n, mu=mu, error_estimate=err,
            y=_readonly(y), shown=shown, zero=zero, unresolved=unresolved,
            slope_k=_readonly(slope_k), slope=_readonly(slope), method=str(sp.method),
            log10_mu=log10_mu, log10_multiplicity=log10_n, log10_y=log10_y, trustworthy=trust,
            relative_error=_readonly(sp.relative_error), log10_trustworthy=log_trust)
