"""Requests behind the table commands ``ntkviz kernel`` and ``ntkviz spectrum`` (Qt-free).

``KernelTableRequest`` evaluates one dot-product kernel κ(u) and its derivative
κ'(u) at given cosines; ``SpectrumTableRequest`` computes the Mercer eigenvalues
μ_k, k = 0..kmax, of one kernel on ``S^{p-1}``. Both validate once on
construction (``ValueError`` naming the field and its allowed range) and return
a response with ``csv_table()`` → ``(header, rows)``. Conventions are those of
:mod:`ntkviz.core`: the paper normalisation ``NTK_L(1) = L`` (Bietti & Mairal
2019) unless ``normalize``; μ_k for the uniform probability measure on the
sphere, each of multiplicity ``N(p, k)``, so that ``Σ_k N(p, k) μ_k = κ(1)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ntkviz._check import check_int
from ntkviz.limits import DIM_RANGE, KERNEL_GRID_RANGE, KMAX_RANGE

__all__ = ["KernelTableRequest", "KernelTable", "SpectrumTableRequest", "SpectrumTable",
           "SPECTRUM_COLUMNS"]

#: the columns of the CSV of ``ntkviz spectrum``: ``Spectrum.rows()``, ``log10_trustworthy``
#: and ``log10_multiplicity``
SPECTRUM_COLUMNS = ("k", "multiplicity", "mu", "error_estimate", "log10_mu", "trustworthy",
                    "log10_trustworthy", "log10_multiplicity")


def _spec(spec):
    """``spec`` itself: a ``KernelSpec`` is valid by construction."""
    from ntkviz.core import KernelSpec

    if not isinstance(spec, KernelSpec):
        raise ValueError(f"spec must be a KernelSpec, got {type(spec).__name__}")
    return spec


@dataclass(frozen=True)
class KernelTable:
    """``value = κ(u)`` and ``derivative = κ'(u)`` (±inf where infinite, e.g. the
    ReLU NTK at u = ±1) on the request's cosines ``u``."""

    u: np.ndarray
    value: np.ndarray
    derivative: np.ndarray

    def csv_table(self) -> tuple[list[str], list[list[float]]]:
        """``(["u", "value", "derivative"], rows)``, one row per cosine."""
        return (["u", "value", "derivative"],
                [[float(a), float(b), float(c)] for a, b, c in zip(self.u, self.value, self.derivative)])


@dataclass(frozen=True, eq=False)
class KernelTableRequest:
    """κ(u) and κ'(u) of one kernel at the cosines ``u``.

    Parameters
    ----------
    spec : KernelSpec
        The kernel.
    u : array_like
        Cosines in [-1, 1] (1-D after flattening); values outside by at most
        1e-12 (rounding) count as ±1, anything else is refused.
    """

    spec: object
    u: object

    def __post_init__(self):
        from ntkviz.core import check_cosines

        object.__setattr__(self, "spec", _spec(self.spec))
        u = check_cosines(np.ravel(np.asarray(self.u, dtype=np.float64)), "u")
        if u.size == 0:
            raise ValueError("u must hold at least one cosine")
        u.setflags(write=False)
        object.__setattr__(self, "u", u)

    @classmethod
    def grid(cls, spec, n_points: int) -> "KernelTableRequest":
        """``n_points`` equally spaced cosines from -1 to 1, both ends included."""
        n = check_int("grid", n_points, KERNEL_GRID_RANGE)
        return cls(spec, np.linspace(-1.0, 1.0, n))

    def __call__(self) -> KernelTable:
        from ntkviz.core import evaluate_kernel

        value, derivative = evaluate_kernel(self.spec, self.u, check_input=False)  # u checked once
        return KernelTable(self.u, np.asarray(value, dtype=np.float64),
                           np.asarray(derivative, dtype=np.float64))


@dataclass(frozen=True)
class SpectrumTable:
    """The core ``Spectrum`` of a :class:`SpectrumTableRequest`."""

    spectrum: object

    def csv_table(self) -> tuple[list[str], list[list]]:
        """One row per degree: ``k, multiplicity, mu, error_estimate, log10_mu, trustworthy,
        log10_trustworthy, log10_multiplicity`` (``Spectrum.rows()``: the multiplicity an
        exact integer, beyond float64 at large p and k -- read it as text, or use
        ``log10_multiplicity``, its base-10 logarithm, finite everywhere; ``log10_mu`` the
        base-10 logarithm of μ_k, also below the float64 range, blank for exact zeros and
        values below the resolution; ``trustworthy`` whether the float64 ``mu`` is vouched
        for; ``log10_trustworthy`` whether ``log10_mu`` is, also where ``mu`` underflows)."""
        sp = self.spectrum
        logs = sp.log10_multiplicity
        return list(SPECTRUM_COLUMNS), [[*row, bool(trust), float(logs[i])] for i, (row, trust) in
                                        enumerate(zip(sp.rows(), sp.log10_trustworthy))]


@dataclass(frozen=True)
class SpectrumTableRequest:
    """Mercer eigenvalues of one kernel on ``S^{dim-1}`` for ``k = 0..kmax``.

    Parameters
    ----------
    spec : KernelSpec
    dim : int
        Input dimension ``p`` in ``DIM_RANGE`` (2..1000).
    kmax : int
        Highest degree in ``KMAX_RANGE`` (1..2000).
    """

    spec: object
    dim: int
    kmax: int

    def __post_init__(self):
        object.__setattr__(self, "spec", _spec(self.spec))
        object.__setattr__(self, "dim", check_int("dim", self.dim, DIM_RANGE))
        object.__setattr__(self, "kmax", check_int("kmax", self.kmax, KMAX_RANGE))

    def __call__(self) -> SpectrumTable:
        from ntkviz.core import mercer_spectrum

        return SpectrumTable(mercer_spectrum(self.spec, self.dim, self.kmax, check_input=False))
