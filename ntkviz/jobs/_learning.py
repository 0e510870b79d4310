"""Generalisation of kernel ridge regression on the sphere: theory, Monte-Carlo, GP samples,
Funk–Hecke partial sums (``ntkviz.core.learning``).

Convention: ``f̂ = K(x, X)(K(X, X) + δ I)⁻¹ y``, δ **not** multiplied by n; test MSE is the
error against a fresh noisy label (so it includes σ²). ``LearningTheoryRequest`` is cheap
(live); ``LearningMonteCarloRequest.iterate()`` yields :class:`~ntkviz.jobs.Progress` items
(``fraction``; cancel between items) and returns the response.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Generator

import numpy as np

from ntkviz import limits
from ntkviz._check import check_float, check_int
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["LearningTheoryRequest", "LearningTheoryResponse", "LearningMonteCarloRequest",
           "LearningMonteCarloResponse", "GpSamplesRequest", "GpSamplesResponse",
           "PartialSumsRequest", "PartialSumsResponse", "GeneralisationRequest",
           "GeneralisationResponse", "FIT_MAX_N"]


def _kernel_specs(kernels, why: str) -> tuple:
    """``kernels`` as a non-empty tuple of ``KernelSpec`` (valid by construction) whose κ(1)
    is finite (``why``: what an infinite κ(1) makes undefined)."""
    from ntkviz.core import KernelSpec, kernel_at_one

    specs = tuple(kernels)
    if not specs:
        raise ValueError("kernels must name at least one kernel")
    for spec in specs:
        if not isinstance(spec, KernelSpec):
            raise ValueError(f"kernels must be KernelSpec values, got {type(spec).__name__}")
        if not math.isfinite(kernel_at_one(spec)):
            raise ValueError(f"kernel {spec.label} has κ(1) = inf{why}")
    return specs


def _check_common(req, n_range=limits.LEARN_N_RANGE):
    from ntkviz.core.learning import Target

    specs = _kernel_specs(req.kernels, " (step-activation NTK): kernel regression is undefined")
    object.__setattr__(req, "kernels", specs)
    labels = tuple(req.labels) if req.labels else tuple(s.label for s in specs)
    if len(labels) != len(specs):
        raise ValueError(f"labels must have one entry per kernel ({len(specs)}), got {len(labels)}")
    object.__setattr__(req, "labels", labels)
    if not isinstance(req.target, Target):
        raise ValueError(f"target must be a Target, got {type(req.target).__name__}")
    object.__setattr__(req, "dim", check_int("dim", req.dim, limits.DIM_RANGE))
    object.__setattr__(req, "kmax", check_int("kmax", req.kmax, limits.LEARN_KMAX_RANGE))
    if req.target.max_degree > req.kmax:
        raise ValueError(f"target degree must be in [0, kmax = {req.kmax}], got {req.target.max_degree}")
    object.__setattr__(req, "ridge", check_float("ridge", req.ridge, limits.RIDGE_RANGE))
    object.__setattr__(req, "noise", check_float("noise", req.noise, limits.NOISE_RANGE))
    ns = tuple(check_int("n", n, n_range) for n in req.n_values)
    if not ns:
        raise ValueError("n must list at least one sample size")
    object.__setattr__(req, "n_values", ns)
    if float(req.ridge) == 0.0 and req.dim == 2 and any(s.name == "ntk" and s.activation == "step"
                                                         for s in specs):
        raise ValueError("ridge must be > 0 for this kernel")


def _projection_and_spectra(req):
    from ntkviz.core import kernel_at_one, mercer_spectrum

    projection = req.target.projection(req.dim, req.kmax)
    spectra = [mercer_spectrum(s, req.dim, req.kmax, check_input=False) for s in req.kernels]
    return projection, spectra, [kernel_at_one(s) for s in req.kernels]


@dataclass(frozen=True)
class LearningTheoryResponse:
    """Per kernel (same order as the request): theory (:class:`LearningTheory`), spectrum,
    RKHS norm; the target's projection."""

    labels: tuple
    n_values: tuple
    theories: tuple
    spectra: tuple
    norms: tuple
    projection: object
    ridge: float
    noise: float

    def csv_table(self, view: str = "curve") -> tuple[list[str], list[list]]:
        """``curve``: kernel,n,theory_test_mse,theory_train_mse,effective_ridge,e0,tail_dof_bound,
        trustworthy (tail_dof_bound <= 1e-3 n);
        ``learnability``: kernel,n,k,mu,learnability,target_power (at the largest n)."""
        if view == "curve":
            head = ["kernel", "n", "theory_test_mse", "theory_train_mse", "effective_ridge", "e0",
                    "tail_dof_bound", "trustworthy"]
            rows = [[lab, int(n), float(th.test_mse[i]), float(th.train_mse[i]),
                     float(th.effective_ridge[i]), float(th.e0[i]), float(th.tail_dof_bound[i]),
                     bool(th.trustworthy[i])]
                    for lab, th in zip(self.labels, self.theories) for i, n in enumerate(th.n)]
            return head, rows
        if view == "learnability":
            head = ["kernel", "n", "k", "mu", "learnability", "target_power"]
            rows = []
            for lab, th, sp in zip(self.labels, self.theories, self.spectra):
                i = len(th.n) - 1
                for k in range(sp.k.shape[0]):
                    rows.append([lab, int(th.n[i]), k, float(sp.mu[k]), float(th.learnability[i, k]),
                                 float(self.projection.power[k])])
            return head, rows
        raise ValueError(f"view must be curve or learnability, got {view!r}")


@dataclass(frozen=True)
class _LearningSetup:
    """The fields every learning request shares: ``kernels``: KernelSpecs; ``labels``:
    names for tables (default: the specs' labels); ``dim`` p in [2, 1000]; ``target``:
    :class:`ntkviz.core.learning.Target` (degrees <= kmax); ``ridge`` δ in [0, 1e6];
    ``noise`` σ in [0, 1e3]; ``n_values`` each in [1, 1e7]; ``kmax`` in [10, 2000]."""

    kernels: tuple
    target: object
    dim: int = 3
    ridge: float = 1e-3
    noise: float = 0.0
    n_values: tuple = (100, 200, 500, 1000)
    kmax: int = 1000
    labels: tuple = ()


@dataclass(frozen=True)
class LearningTheoryRequest(_LearningSetup):
    """Eigenlearning prediction for each kernel and each n (module docstring; fields as
    :class:`_LearningSetup`; the tail above kmax is analytic)."""

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = False

    def __post_init__(self):
        _check_common(self)

    def __call__(self) -> LearningTheoryResponse:
        from ntkviz.core import learning_theory, rkhs_norm

        projection, spectra, at_one = _projection_and_spectra(self)
        theories = tuple(learning_theory(sp, a1, projection.power, projection.tail_power,
                                         self.n_values, self.ridge, self.noise)
                         for sp, a1 in zip(spectra, at_one))
        norms = tuple(rkhs_norm(sp, projection) for sp in spectra)
        return LearningTheoryResponse(self.labels, self.n_values, theories, tuple(spectra), norms,
                                      projection, float(self.ridge), float(self.noise))


@dataclass(frozen=True)
class LearningMonteCarloResponse:
    """``test_mse[kernel_index][n_index]`` arrays over seeds (NaN where not run), and
    learned fractions per degree (mean over seeds) at each n."""

    labels: tuple
    n_values: tuple
    test_mse: np.ndarray          # (kernels, n, seeds)
    train_mse: np.ndarray
    degrees: tuple                 # per kernel: degrees of the learned fractions
    learned_fraction: tuple        # per kernel: (n, degrees) means
    fraction: float = 1.0

    def mean_sem(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean over seeds and its standard error ``sd/√s`` (s finite seeds; NaN for the SEM
        with s < 2). Every seed draws its own training *and* test points, so the spread over
        seeds holds the test-set sampling error too."""
        with np.errstate(invalid="ignore"), _quiet():
            mean = np.nanmean(self.test_mse, axis=2)
            sd = np.nanstd(self.test_mse, axis=2, ddof=1)
            count = self.seed_counts()
            sem = np.where(count >= 2, sd / np.sqrt(np.maximum(count, 1)), np.nan)
        return mean, sem

    def seed_counts(self) -> np.ndarray:
        """Finished seeds per (kernel, n)."""
        return np.sum(np.isfinite(self.test_mse), axis=2)

    def mean_ci(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Mean over seeds and the half-width ``t_{(1+level)/2, s-1} · SEM`` of its two-sided
        ``level`` confidence interval (Student t with s − 1 degrees of freedom: with 5 seeds
        the 95 % interval is ±2.78 SEM, not ±1 SEM; NaN with s < 2)."""
        from scipy.stats import t as student_t

        if not (isinstance(level, float) and 0.0 < level < 1.0):
            raise ValueError(f"level must be a float in (0, 1), got {level!r}")
        mean, sem = self.mean_sem()
        quantile = student_t.ppf(0.5 + 0.5 * level, np.maximum(self.seed_counts() - 1, 1))
        return mean, quantile * sem

    def csv_table(self, view: str = "curve") -> tuple[list[str], list[list]]:
        """``curve``: kernel,n,empirical_test_mse,empirical_sem,empirical_ci95 (half-width of the
        95 % Student-t interval drawn as the error bar),empirical_train_mse,seeds;
        ``learned_fraction``: kernel,n,k,learned_fraction (mean over seeds of ⟨f̂_k, f_k⟩/‖f_k‖²,
        expectation L_k)."""
        if view == "learned_fraction":
            rows = [[lab, n, int(k), float(self.learned_fraction[i][j, m])]
                    for i, lab in enumerate(self.labels) if self.degrees[i] is not None
                    for j, n in enumerate(self.n_values) for m, k in enumerate(self.degrees[i])]
            return ["kernel", "n", "k", "learned_fraction"], rows
        if view != "curve":
            raise ValueError(f"view must be curve or learned_fraction, got {view!r}")
        mean, sem = self.mean_sem()
        _, half = self.mean_ci()
        with _quiet():
            train = np.nanmean(self.train_mse, axis=2)
        rows = [[lab, n, float(mean[i, j]), float(sem[i, j]), float(half[i, j]), float(train[i, j]),
                 int(self.seed_counts()[i, j])]
                for i, lab in enumerate(self.labels) for j, n in enumerate(self.n_values)]
        return ["kernel", "n", "empirical_test_mse", "empirical_sem", "empirical_ci95", "empirical_train_mse",
                "seeds"], rows


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


@dataclass(frozen=True)
class LearningMonteCarloRequest(_LearningSetup):
    """Monte-Carlo KRR (fields as :class:`_LearningSetup`, plus ``seeds`` in [1, 1000],
    ``seed`` (target directions and the base of the trials' seeds), ``n_test`` in [10, 1e5]).
    Every n must be <= 20000: a larger Gram solve would take minutes."""

    seeds: int = 10
    seed: int = 0
    n_test: int = 2000

    def __post_init__(self):
        _check_common(self, limits.MC_N_RANGE)  # an n x n solve above 20000 takes minutes
        object.__setattr__(self, "seeds", check_int("seeds", self.seeds, limits.MC_SEEDS_RANGE))
        object.__setattr__(self, "n_test", check_int("n_test", self.n_test, limits.MC_TEST_RANGE))
        object.__setattr__(self, "seed", check_int("seed", self.seed, limits.MC_SEED_RANGE))

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    def iterate(self) -> Generator[Progress, None, "LearningMonteCarloResponse"]:
        """A progress item per finished trial; returns the response."""
        from ntkviz.core import krr_trial, mercer_spectrum

        projection = self.target.projection(self.dim, self.kmax)
        directions = self.target.directions(self.dim, self.seed)
        shape = (len(self.kernels), len(self.n_values), self.seeds)
        test = np.full(shape, np.nan)
        train = np.full(shape, np.nan)
        degrees, fractions = [], []
        total = shape[0] * shape[1] * shape[2]
        done = 0
        from concurrent.futures import ThreadPoolExecutor, as_completed

        # the kernel evaluations are nogil numba and the solves release the GIL: two seeds
        # run at once; a cancel (generator closed) drops the trials not yet started
        pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ntkviz-krr")
        try:
            for i, (spec, label) in enumerate(zip(self.kernels, self.labels)):
                mu = mercer_spectrum(spec, self.dim, min(self.kmax, 200), check_input=False).mu
                degs, frac = None, None
                for j, n in enumerate(self.n_values):
                    futures = {pool.submit(krr_trial, spec, self.target, directions, projection, mu, n,
                                           self.n_test, self.ridge, self.noise,
                                           self.seed * 100_003 + s): s for s in range(self.seeds)}
                    for future in as_completed(futures):
                        s, trial = futures[future], future.result()
                        test[i, j, s], train[i, j, s] = trial.test_mse, trial.train_mse
                        if degs is None:
                            degs = trial.degrees
                            frac = np.zeros((len(self.n_values), degs.size))
                        frac[j] += trial.learned_fraction / self.seeds
                        done += 1
                        yield Progress(done / total, f"{label}, n = {n}, seed {s}")
                degrees.append(degs)
                fractions.append(frac)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return LearningMonteCarloResponse(self.labels, self.n_values, test, train, tuple(degrees),
                                          tuple(fractions))

    def __call__(self) -> LearningMonteCarloResponse:
        return run_to_end(self.iterate())


@dataclass(frozen=True)
class GpSamplesResponse:
    labels: tuple
    theta: np.ndarray
    samples: tuple  # per kernel (count, points)

    def csv_table(self, view: str = "samples") -> tuple[list[str], list[list]]:
        """``kernel,sample,theta,value``."""
        rows = [[lab, j, float(t), float(v)] for lab, smp in zip(self.labels, self.samples)
                for j in range(smp.shape[0]) for t, v in zip(self.theta, smp[j])]
        return ["kernel", "sample", "theta", "value"], rows


@dataclass(frozen=True)
class GpSamplesRequest:
    """``count`` in [1, 50] GP prior samples of each kernel along a great circle at ``points``
    in [16, 8192] angles (the law does not depend on p: only the cosines enter)."""

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = False

    kernels: tuple
    labels: tuple = ()
    count: int = 3
    points: int = 512
    seed: int = 0

    def __post_init__(self):
        specs = _kernel_specs(self.kernels, ": no GP prior")
        object.__setattr__(self, "kernels", specs)
        object.__setattr__(self, "labels", tuple(self.labels) or tuple(s.label for s in specs))
        object.__setattr__(self, "count", check_int("count", self.count, limits.GP_COUNT_RANGE))
        object.__setattr__(self, "points", check_int("points", self.points, limits.GP_POINTS_RANGE))
        object.__setattr__(self, "seed", check_int("seed", self.seed, limits.MC_SEED_RANGE))

    def __call__(self) -> GpSamplesResponse:
        from ntkviz.core import gp_samples_on_circle

        out = [gp_samples_on_circle(s, self.count, self.points, self.seed + i)
               for i, s in enumerate(self.kernels)]
        return GpSamplesResponse(self.labels, out[0][0], tuple(o[1] for o in out))


@dataclass(frozen=True)
class PartialSumsResponse:
    label: str
    u: np.ndarray
    exact: np.ndarray
    degrees: tuple
    sums: np.ndarray  # (len(degrees), points)

    def csv_table(self, view: str = "partial_sums") -> tuple[list[str], list[list]]:
        """``u,kappa,S_K...`` one column per K."""
        head = ["u", "kappa"] + [f"S_{k}" for k in self.degrees]
        return head, [[float(u), float(e)] + [float(v) for v in self.sums[:, i]]
                      for i, (u, e) in enumerate(zip(self.u, self.exact))]


@dataclass(frozen=True)
class PartialSumsRequest:
    """Funk–Hecke partial sums ``Σ_{k<=K} N μ_k P_k(u)`` of ``kernel`` on ``S^{dim-1}`` for
    each K in ``degrees`` (each in [0, 2000]) at ``points`` cosines in [-1, 1]."""

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = False

    kernel: object
    dim: int = 3
    degrees: tuple = (1, 2, 4, 8, 16, 64)
    points: int = 401
    label: str = ""

    def __post_init__(self):
        from ntkviz.core import KernelSpec

        if not isinstance(self.kernel, KernelSpec):  # valid by construction
            raise ValueError(f"kernel must be a KernelSpec, got {type(self.kernel).__name__}")
        object.__setattr__(self, "dim", check_int("dim", self.dim, limits.DIM_RANGE))
        degs = tuple(check_int("degrees", k, limits.PARTIAL_SUM_DEGREE_RANGE) for k in self.degrees)
        if not degs:
            raise ValueError("degrees must list at least one degree")
        object.__setattr__(self, "degrees", degs)
        object.__setattr__(self, "points", check_int("points", self.points,
                                                     limits.PARTIAL_SUM_POINTS_RANGE))

    def __call__(self) -> PartialSumsResponse:
        from ntkviz.core import evaluate_kernel, funk_hecke_partial_sums, mercer_spectrum

        u = np.linspace(-1.0, 1.0, self.points)
        # dim and the degrees (<= KMAX_RANGE's end) were checked in __post_init__
        sp = mercer_spectrum(self.kernel, self.dim, max(self.degrees), check_input=False)
        return PartialSumsResponse(self.label or self.kernel.label, u,
                                   evaluate_kernel(self.kernel, u, check_input=False)[0],
                                   self.degrees, funk_hecke_partial_sums(sp, u, self.degrees))


#: fits along the circle are drawn live up to this n (one n x n solve per kernel)
FIT_MAX_N = 3000


@dataclass(frozen=True)
class GeneralisationResponse:
    """Everything the Generalisation panel draws from one light job."""

    theory: LearningTheoryResponse   # on curve_n (the learning curve)
    current: LearningTheoryResponse  # at the current n only
    fits: tuple                      # per kernel CircleFit, or () when n > FIT_MAX_N
    gp: GpSamplesResponse
    partial: PartialSumsResponse
    bounds: np.ndarray
    approximation: tuple             # per kernel A(B) on bounds
    n: int

    def csv_table(self, view: str = "curve") -> tuple[list[str], list[list]]:
        """``curve`` and ``learnability`` (at the current n) as in :class:`LearningTheoryResponse`;
        ``fit`` (kernel,theta,target,prediction); ``gp``; ``partial_sums``; ``approximation``."""
        if view == "curve":
            return self.theory.csv_table("curve")
        if view == "learnability":
            return self.current.csv_table("learnability")
        if view == "fit":
            rows = [[lab, float(t), float(f), float(pr)] for lab, fit in zip(self.theory.labels, self.fits)
                    for t, f, pr in zip(fit.theta, fit.target, fit.prediction)]
            return ["kernel", "theta", "target", "prediction"], rows
        if view == "gp":
            return self.gp.csv_table()
        if view == "partial_sums":
            return self.partial.csv_table()
        if view == "approximation":
            rows = [[lab, float(b), float(a)] for lab, errs in zip(self.theory.labels, self.approximation)
                    for b, a in zip(self.bounds, errs)]
            return ["kernel", "norm_bound", "approximation_error"], rows
        raise ValueError(f"view must be one of curve, learnability, fit, gp, partial_sums, "
                         f"approximation, got {view!r}")


@dataclass(frozen=True)
class GeneralisationRequest:
    """Theory on ``curve_n`` and at ``n``, the KRR fit along a great circle at ``n`` (seed
    ``seed``; skipped above n = 3000), GP samples, Funk–Hecke partial sums of the first
    kernel and the bounded-norm approximation error (fields as :class:`LearningTheoryRequest`)."""

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = False

    kernels: tuple
    target: object
    dim: int = 3
    ridge: float = 1e-3
    noise: float = 0.0
    n: int = 200
    kmax: int = 500
    labels: tuple = ()
    seed: int = 0
    curve_n: tuple = tuple(int(v) for v in np.unique(np.geomspace(10, 100_000, 60).astype(int)))

    def __post_init__(self):
        object.__setattr__(self, "n_values", (int(self.n),))
        _check_common(self)

    def __call__(self) -> GeneralisationResponse:
        from ntkviz.core.learning import approximation_error, krr_fit_on_circle

        common = dict(kernels=self.kernels, target=self.target, dim=self.dim, ridge=self.ridge,
                      noise=self.noise, kmax=self.kmax, labels=self.labels)
        theory = LearningTheoryRequest(n_values=self.curve_n, **common)()
        current = LearningTheoryRequest(n_values=(int(self.n),), **common)()
        fits = ()
        if self.n <= FIT_MAX_N:
            directions = self.target.directions(self.dim, self.seed)
            fits = tuple(krr_fit_on_circle(s, self.target, directions, int(self.n), self.ridge,
                                           self.noise, self.seed) for s in self.kernels)
        gp = GpSamplesRequest(self.kernels, self.labels, count=3, points=512, seed=self.seed)()
        partial = PartialSumsRequest(self.kernels[0], self.dim, label=self.labels[0])()
        total = max(theory.projection.total_power, 1e-300)
        bounds = np.geomspace(1e-3, 1e3, 61) * math.sqrt(total)
        approx = tuple(approximation_error(sp, theory.projection, bounds) for sp in theory.spectra)
        return GeneralisationResponse(theory, current, fits, gp, partial, bounds, approx, int(self.n))
