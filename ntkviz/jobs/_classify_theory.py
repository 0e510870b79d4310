"""The spectrum & theory job of the Classification tab (Qt-free): the theory of kernel regression
on a pool of bundled digits, for the CKN, the NTK, pixels and scattering side by side.

:class:`ClassifyTheoryRequest` takes the training digits of the Classification tab's split
(the bundled 1,000 digits without the ``test_size`` test digits of ``seed``:
:func:`ntkviz.jobs._classify.bundled_split`) and, as its pool, the first ``pool_size`` of them in
the tab's seeded training order (:func:`ntkviz.dataset.classify.pool_images`, so the nested
training sets of the classification are prefixes of the pool). For each kernel it forms the
pool's Gram matrix — the CKN and NTK through the tab's tiled Gram path, cached as the same Zarr
stores (a store that exists costs no kernel evaluation; a missing one is computed with
progress), pixels and scattering as Gaussian kernels with the median-distance bandwidth — and
runs :class:`ntkviz.jobs.DataTheoryRequest` on it: the spectrum of ``K̃ = K / (tr K / N)``
with its trust flags and the sphere reference of the kernel family, the labels' cumulative
alignment, the eigenlearning prediction of the held-out MSE, the measured MSE and accuracy of
KRR on random subsets, and the Arora et al. certificate ``√(2 YᵀH⁻¹Y / n)`` with
``λ_min(H)``, for the true labels and (``random_labels``) a seeded permutation of them.

The response (:class:`ClassifyTheoryResponse`) holds one
:class:`~ntkviz.jobs.DataTheoryResponse` per kernel, the tables of the four views
(:data:`THEORY_VIEWS`) and :meth:`ClassifyTheoryResponse.ordering`, which says whether the
certificate ranks the kernels as their accuracy does.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Generator

import numpy as np

from ntkviz import limits
from ntkviz._check import check_int
from ntkviz.dataset._settings import TheorySettings, check_kernels, check_pool
from ntkviz.jobs._data_theory import _cell
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["ClassifyTheoryRequest", "ClassifyTheoryResponse", "THEORY_VIEWS", "KernelOrdering"]

#: the views of the Classification tab drawn from this job
THEORY_VIEWS = ("spectrum", "alignment", "learning_curve", "certificate")
#: share of the progress bar of the conv Gram matrices (the rest: the theory per kernel)
GRAM_SHARE = 0.6


@dataclass(frozen=True)
class ClassifyTheoryRequest(TheorySettings):
    """The spectrum & theory of the Classification tab (module docstring): the validated
    :class:`~ntkviz.dataset._settings.TheorySettings` plus the tab's ``architecture``,
    ``kernels``, ``test_size`` and ``seed`` (which fix the split and the pool) and
    ``cache_dir``, the folder of the cached Gram stores (None: keep nothing on disk)."""

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    architecture: str = "M1"
    kernels: tuple[str, ...] = ("ckn", "ntk", "pixels")
    test_size: int = 50
    seed: int = 0
    cache_dir: str | None = None

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "kernels", check_kernels(self.architecture, self.kernels))
        object.__setattr__(self, "test_size", check_int("test_size", self.test_size,
                                                        limits.CLASSIFY_TEST_RANGE))
        object.__setattr__(self, "seed", check_int("seed", self.seed, limits.SEED_RANGE))
        check_pool(self.pool_size, self.test_size)
        if self.cache_dir is not None and not isinstance(self.cache_dir, str):
            raise ValueError(f"cache_dir must be a folder name or None, got {self.cache_dir!r}")

    def pairs(self) -> int:
        """Conv kernel pairs of the pool's Gram matrix without a cache (for the progress text)."""
        n = self.pool_size
        return n * (n + 1) // 2 if any(k in ("ckn", "ntk") for k in self.kernels) else 0

    def pool(self) -> tuple[np.ndarray, np.ndarray]:
        """The pool's images (float64) and integer labels (module docstring)."""
        from ntkviz.dataset.classify import pool_images
        from ntkviz.jobs._classify import bundled_split

        xtr, ytr, _, _ = bundled_split(self.test_size, self.seed, 0)
        return pool_images(xtr, ytr, self.pool_size, self.seed)

    def iterate(self) -> Generator[Progress, None, "ClassifyTheoryResponse"]:
        """Progress items (``partial``: the kernels done so far); returns the response."""
        from ntkviz.core.conv.architecture import PRESETS
        from ntkviz.dataset._gram import gram_meta
        from ntkviz.dataset.classify import conv_gram_run, feature_gram
        from ntkviz.jobs._data_theory import DataTheoryRequest

        arch = PRESETS[self.architecture]
        images, labels = self.pool()
        conv = tuple(k for k in self.kernels if k in ("ckn", "ntk"))
        grams: dict = {}
        start = 0.0
        if conv:
            run = conv_gram_run(images, None, arch, conv, self.cache_dir)
            total, done = max(run.total_pairs, 1), 0
            yield Progress(0.0, "pool Gram matrix")
            for ev in run.events(None):
                done += ev.pairs + run.skipped_pairs(ev) if ev.tile is not None else ev.pairs
                yield Progress(GRAM_SHARE * min(done / total, 1.0), "pool Gram matrix")
            for k in conv:
                store = getattr(run.targets[k], "path", None)  # read back through the store reader
                grams[k] = (str(store), None) if store is not None else \
                    (run.matrix(k), gram_meta(arch, k, images, None, run.tile).to_attrs())
            start = GRAM_SHARE
        theories: dict = {}
        share = (1.0 - start) / len(self.kernels)
        for i, k in enumerate(self.kernels):
            base = start + i * share
            if k not in grams:
                yield Progress(base, f"{k}: Gram matrix")
                grams[k] = (feature_gram(k, images), None)
            gram, meta = grams.pop(k)
            request = DataTheoryRequest(gram, labels, self.theory_sizes, ridge=self.theory_ridge, draws=self.draws,
                                        seed=self.theory_seed, random_labels=self.random_labels, name=k, meta=meta)
            steps = request.iterate()
            while True:
                try:
                    item = next(steps)
                except StopIteration as stop:
                    theories[k] = stop.value
                    break
                yield Progress(base + share * item.fraction, f"{k}: {item.message}",
                               self.respond(theories) if theories else None)
        return self.respond(theories)

    def respond(self, theories: dict) -> "ClassifyTheoryResponse":
        """The response holding the kernels done (``theories``: kernel -> DataTheoryResponse)."""
        return ClassifyTheoryResponse(self, dict(theories))

    def __call__(self) -> "ClassifyTheoryResponse":
        return run_to_end(self.iterate())


@dataclass(frozen=True)
class KernelOrdering:
    """How the certificate and the measured accuracy rank the kernels at the largest n
    (true labels, means over the draws).

    ``by_certificate``: kernels from the smallest certificate (the tightest bound: the best
    predicted) to the largest; ``by_accuracy``: from the most to the least accurate;
    ``fastest_decay``: the kernel whose spectrum is smallest at index n (its label energy on
    small eigenvalues weighs most in YᵀH⁻¹Y); ``vacuous``: every certificate is above 1 (a
    bound on a 0–1 loss that says nothing)."""

    n: int
    by_certificate: tuple[str, ...]
    by_accuracy: tuple[str, ...]
    certificate: dict
    accuracy: dict
    fastest_decay: str
    vacuous: bool

    @property
    def matches(self) -> bool:
        return self.by_certificate == self.by_accuracy


@dataclass(frozen=True, eq=False)
class ClassifyTheoryResponse:
    """The theory on the pool for each kernel done (``theories``: kernel -> DataTheoryResponse,
    in the request's order) and the request it answers."""

    request: ClassifyTheoryRequest
    theories: dict

    @property
    def kernels(self) -> tuple[str, ...]:
        return tuple(k for k in self.request.kernels if k in self.theories)

    @property
    def complete(self) -> bool:
        return len(self.theories) == len(self.request.kernels)

    def ordering(self) -> KernelOrdering | None:
        """The ranking of the kernels by certificate and by accuracy at the largest n, or None
        with fewer than two kernels."""
        kernels = self.kernels
        if len(kernels) < 2:
            return None
        n = self.request.theory_sizes[-1]
        cert = {k: float(self.theories[k].certificate["true"][-1].mean()) for k in kernels}
        acc = {k: float(self.theories[k].accuracy["true"][-1].mean()) for k in kernels}
        by_cert = tuple(sorted(kernels, key=lambda k: cert[k]))
        by_acc = tuple(sorted(kernels, key=lambda k: -acc[k]))

        def tail(k: str) -> float:
            sp = self.theories[k].spectrum
            value = sp.eigenvalues[min(n, sp.size) - 1]
            return float(value) if sp.trustworthy[min(n, sp.size) - 1] else 0.0

        fastest = min(kernels, key=tail)
        return KernelOrdering(n, by_cert, by_acc, cert, acc, fastest, all(c > 1 for c in cert.values()))

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        """Exactly the numbers of ``view`` (one of :data:`THEORY_VIEWS`), a ``kernel`` column first:

        * ``spectrum``: ``kernel,index,eigenvalue,trustworthy,sphere_reference`` — ``λ_i(K̃)/N``
          (summing to 1), its trust flag, the reference's i-th eigenvalue (blank without one);
        * ``alignment``: ``kernel,labels,index,cumulative_alignment``;
        * ``learning_curve``: ``kernel,labels,n,predicted_test_mse,measured_test_mse,
          measured_test_mse_sem`` — the prediction on log-spaced n (measured blank) and at the
          training sizes, with the measurement;
        * ``certificate``: ``kernel`` and the columns of ``ntkviz data-theory``.
        """
        if view not in THEORY_VIEWS:
            raise ValueError(f"view must be one of {', '.join(THEORY_VIEWS)}; got {view!r}")
        rows = []
        if view == "spectrum":
            for k in self.kernels:
                th = self.theories[k]
                sp, ref = th.spectrum, th.reference
                for i in range(sp.size):
                    reference = "" if ref is None or i >= ref.eigenvalues.size else float(ref.eigenvalues[i])
                    rows.append([k, i + 1, float(sp.eigenvalues[i]), bool(sp.trustworthy[i]), reference])
            return ["kernel", "index", "eigenvalue", "trustworthy", "sphere_reference"], rows
        if view == "alignment":
            for k in self.kernels:
                th = self.theories[k]
                for kind in th.kinds:
                    rows += [[k, kind, i + 1, float(a)] for i, a in enumerate(th.cumulative_alignment(kind))]
            return ["kernel", "labels", "index", "cumulative_alignment"], rows
        if view == "learning_curve":
            for k in self.kernels:
                th = self.theories[k]
                for kind in th.kinds:
                    curve = th.curve[kind]
                    rows += [[k, kind, int(n), _cell(m), "", ""] for n, m in zip(curve.n, curve.heldout_mse)]
                    mse = th.test_mse[kind]
                    for j, n in enumerate(th.n_values):
                        sem = mse[j].std(ddof=1) / math.sqrt(mse.shape[1]) if mse.shape[1] > 1 else math.nan
                        rows.append([k, kind, int(n), _cell(th.theory[kind].heldout_mse[j]), float(mse[j].mean()),
                                     _cell(sem)])
            return ["kernel", "labels", "n", "predicted_test_mse", "measured_test_mse", "measured_test_mse_sem"], rows
        header = None
        for k in self.kernels:
            head, table = self.theories[k].csv_table()
            header = ["kernel", *head]
            rows += [[k, *r] for r in table]
        if header is None:
            from ntkviz.jobs._data_theory import DATA_THEORY_CSV_COLUMNS

            header = ["kernel", *DATA_THEORY_CSV_COLUMNS]
        return header, rows

