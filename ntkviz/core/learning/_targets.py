"""Target functions on the sphere ``S^{p-1}`` and their power per degree (Funk–Hecke).

Convention: ``x`` is uniform on ``S^{p-1}`` (probability measure), ``P_k`` the Legendre
polynomial of dimension ``p`` with ``P_k(1) = 1`` and ``N = N(p, k)``. A zonal function
``f(x) = g(⟨x, z⟩)`` has degree-``k`` part ``f_k(x) = N a_k P_k(⟨x, z⟩)`` with the
Funk–Hecke coefficient ``a_k = E_u[g(u) P_k(u)]``, ``u = ⟨x, z⟩`` of density
``c_p (1 - u²)^{(p-3)/2}``; its power is ``E f_k² = N a_k²`` (``E P_k(⟨x,z⟩)² = 1/N``).

Kinds
-----
``components``  Σ c · P_k(⟨x, z_k⟩) over ``(k, c)`` pairs (distinct k; one random unit z_k
                per degree from the seed): ``a_k = c/N``, power ``c²/N``.
``ridge``       ``A max(0, ⟨x, z⟩ - t)`` (Lipschitz ridge).
``step``        ``A sign(⟨x, z⟩ - t)`` (sign/step ridge).
``abs``         ``A |⟨x, z⟩|``.

The named kinds use closed forms from the Gegenbauer equation
``d/du[(1-u²)^{(p-1)/2} P_k'] = -k(k+p-2)(1-u²)^{(p-3)/2} P_k`` and
``P_k^{[p]}' = k(k+p-2)/(p-1) · P_{k-1}^{[p+2]}``::

    ∫_t^1 P_k w_p du     = c_p (1-t²)^{(p-1)/2} P_{k-1}^{[p+2]}(t) / (p-1)          (k >= 1)
    ∫_t^1 (u-t) P_k w_p  = c_p (1-t²)^{(p+1)/2} P_{k-2}^{[p+4]}(t) / ((p-1)(p+1))   (k >= 2)

evaluated in log space (no cancellation, no underflow), so the tail powers keep their
relative accuracy at every degree.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ntkviz.core.learning._gegenbauer import (gegenbauer, log_gegenbauer,
                                              log_sphere_density_constant, upper_tail)
from ntkviz.limits import TARGET_COEFFICIENT_MAX

TARGET_KINDS = ("components", "ridge", "step", "abs")
#: |t| bound of the ridge/step threshold
MAX_THRESHOLD = 0.99
_LN10 = math.log(10.0)


@dataclass(frozen=True)
class TargetProjection:
    """Degree decomposition of a target on ``S^{p-1}`` for ``k = 0..kmax``.

    ``log10_power[k]`` = log10 of the power ``N a_k²`` (``-inf`` where it is 0), ``power``
    the same as float64; ``coef_sign``/``log_abs_coef`` the Funk–Hecke coefficient ``a_k``
    (natural log); ``total_power`` = E f² (exact), ``tail_power`` = power above kmax
    (``total - Σ power``, clipped at 0; 0 for components).
    """

    dim: int
    log10_power: np.ndarray
    power: np.ndarray
    coef_sign: np.ndarray
    log_abs_coef: np.ndarray
    total_power: float
    tail_power: float

    @property
    def coefficient(self) -> np.ndarray:
        """``a_k`` as float64 (may underflow to 0)."""
        with np.errstate(under="ignore"):
            return self.coef_sign * np.exp(self.log_abs_coef)


@dataclass(frozen=True)
class Target:
    """A target function on the sphere (see the module docstring for the kinds).

    ``components``: tuple of ``(k, c)``; ``threshold`` t in [-0.99, 0.99] (ridge, step);
    ``amplitude`` A (named kinds).
    """

    kind: str = "components"
    components: tuple = ((1, 1.0), (2, 1.0), (4, 1.0), (7, 1.0))
    threshold: float = 0.0
    amplitude: float = 1.0

    def __post_init__(self):
        if self.kind not in TARGET_KINDS:
            raise ValueError(f"target kind must be one of {', '.join(TARGET_KINDS)}, got {self.kind!r}")
        comps = tuple((int(k), float(c)) for k, c in self.components)
        for k, c in comps:
            if k < 0:
                raise ValueError(f"target degree must be >= 0, got {k}")
            if not abs(c) <= TARGET_COEFFICIENT_MAX:  # its power c² and the errors' squares stay finite
                raise ValueError(f"target coefficient of degree {k} must be in [-{TARGET_COEFFICIENT_MAX:g}, "
                                 f"{TARGET_COEFFICIENT_MAX:g}], got {c}")
        if len({k for k, _ in comps}) != len(comps):
            raise ValueError("target degrees must be distinct")
        if self.kind == "components" and not comps:
            raise ValueError("target needs at least one degree component k:c")
        object.__setattr__(self, "components", comps)
        if not (math.isfinite(self.threshold) and abs(self.threshold) <= MAX_THRESHOLD):
            raise ValueError(f"target threshold must be in [-{MAX_THRESHOLD}, {MAX_THRESHOLD}], "
                             f"got {self.threshold}")
        if not abs(self.amplitude) <= TARGET_COEFFICIENT_MAX:
            raise ValueError(f"target amplitude must be in [-{TARGET_COEFFICIENT_MAX:g}, "
                             f"{TARGET_COEFFICIENT_MAX:g}], got {self.amplitude}")

    @property
    def max_degree(self) -> int:
        """Highest degree carrying power (components), or -1 for the named kinds (all)."""
        return max(k for k, _ in self.components) if self.kind == "components" else -1

    @property
    def label(self) -> str:
        if self.kind == "components":
            return " + ".join(f"{c:g}·P{k}" for k, c in self.components)
        t = f"{self.threshold:g}"
        return {"ridge": f"{self.amplitude:g}·max(0, u - {t})",
                "step": f"{self.amplitude:g}·sign(u - {t})",
                "abs": f"{self.amplitude:g}·|u|"}[self.kind]

    # ------------------------------------------------------------------ directions, values
    def directions(self, dim: int, seed: int) -> np.ndarray:
        """Unit directions ``z`` (one row per component, or a single row), from ``seed``."""
        rng = np.random.default_rng([int(seed), 14])
        count = len(self.components) if self.kind == "components" else 1
        z = rng.standard_normal((count, dim))
        return z / np.linalg.norm(z, axis=1, keepdims=True)

    def evaluate(self, x: np.ndarray, directions: np.ndarray) -> np.ndarray:
        """``f(x)`` at the rows of ``x`` (unit vectors), directions from :meth:`directions`."""
        u = np.clip(x @ directions.T, -1.0, 1.0)
        if self.kind == "components":
            out = np.zeros(x.shape[0])
            for j, (k, c) in enumerate(self.components):
                out += c * gegenbauer(x.shape[1], k, u[:, j])[k]
            return out
        return self.amplitude * zonal_profile(self.kind, self.threshold, u[:, 0])

    # ------------------------------------------------------------------ Funk–Hecke
    def projection(self, dim: int, kmax: int) -> TargetProjection:
        """Power per degree ``k = 0..kmax`` (module docstring for the formulas)."""
        p = int(dim)
        ks = np.arange(kmax + 1)
        from ntkviz.core.spectra.harmonics import log10_multiplicity

        ln_n = log10_multiplicity(p, ks) * _LN10
        sign = np.zeros(kmax + 1)
        ln_a = np.full(kmax + 1, -np.inf)
        if self.kind == "components":
            for k, c in self.components:
                if k <= kmax and c != 0.0:
                    sign[k] = math.copysign(1.0, c)
                    ln_a[k] = math.log(abs(c)) - ln_n[k]
            total = float(sum(c * c * math.exp(-ln) for (k, c), ln in
                              ((kc, ln_n[kc[0]] if kc[0] <= kmax else _ln_multiplicity(p, kc[0]))
                               for kc in self.components)))
        else:
            sign, ln_a, total = _named_coefficients(self.kind, self.threshold, p, kmax)
            amp = self.amplitude
            if amp == 0.0:
                sign[:] = 0.0
                ln_a[:] = -np.inf
            else:
                sign = sign * math.copysign(1.0, amp)
                ln_a = ln_a + math.log(abs(amp))
            total *= amp * amp
        with np.errstate(invalid="ignore"):
            ln_power = np.where(np.isfinite(ln_a), ln_n + 2.0 * ln_a, -np.inf)
        with np.errstate(under="ignore"):
            power = np.exp(ln_power)
        tail = 0.0 if self.kind == "components" else max(0.0, total - float(power.sum()))
        return TargetProjection(p, ln_power / _LN10, power, sign, ln_a, float(total), tail)


def _ln_multiplicity(p: int, k: int) -> float:
    from ntkviz.core.spectra.harmonics import log10_multiplicity

    return float(log10_multiplicity(p, np.array([k]))[0]) * _LN10


def zonal_profile(kind: str, t: float, u: np.ndarray) -> np.ndarray:
    """``g(u)`` of the named kinds with unit amplitude."""
    if kind == "ridge":
        return np.maximum(0.0, u - t)
    if kind == "step":
        return np.where(u > t, 1.0, -1.0)
    if kind == "abs":
        return np.abs(u)
    raise ValueError(f"unknown zonal kind {kind!r}")


def _step_coefficients(p: int, t: float, kmax: int):
    """Sign and ln|a_k| of the indicator 1[u > t]; also P(u > t)."""
    ln_c = log_sphere_density_constant(p)
    sign = np.zeros(kmax + 1)
    ln_a = np.full(kmax + 1, -np.inf)
    s0 = upper_tail(p, t)
    sign[0], ln_a[0] = (1.0, math.log(s0)) if s0 > 0 else (0.0, -np.inf)
    if kmax >= 1:
        g_sign, g_log = log_gegenbauer(p + 2, kmax - 1, t)
        base = ln_c + 0.5 * (p - 1) * math.log1p(-t * t) - math.log(p - 1)
        sign[1:] = g_sign
        ln_a[1:] = base + g_log
    return sign, ln_a, s0


def _ridge_coefficients(p: int, t: float, kmax: int):
    """Sign and ln|a_k| of max(0, u - t), and E max(0, u - t)²."""
    ln_c = log_sphere_density_constant(p)
    c_p = math.exp(ln_c)
    m1 = c_p * (1.0 - t * t) ** (0.5 * (p - 1)) / (p - 1)   # ∫_t^1 u w
    s0 = upper_tail(p, t)
    a1 = c_p / (p - 1) * upper_tail(p + 2, t) / math.exp(log_sphere_density_constant(p + 2))
    a0 = m1 - t * s0
    total = a1 - t * m1 + t * t * s0
    sign = np.zeros(kmax + 1)
    ln_a = np.full(kmax + 1, -np.inf)
    for k, a in ((0, a0), (1, a1)):
        if k <= kmax and a != 0.0:
            sign[k], ln_a[k] = math.copysign(1.0, a), math.log(abs(a))
    if kmax >= 2:
        g_sign, g_log = log_gegenbauer(p + 4, kmax - 2, t)
        base = ln_c + 0.5 * (p + 1) * math.log1p(-t * t) - math.log((p - 1) * (p + 1))
        sign[2:] = g_sign
        ln_a[2:] = base + g_log
    return sign, ln_a, total


def _named_coefficients(kind: str, t: float, p: int, kmax: int):
    if kind == "ridge":
        return _ridge_coefficients(p, t, kmax)
    if kind == "step":  # sign(u - t) = 2·1[u > t] - 1
        sign, ln_a, s0 = _step_coefficients(p, t, kmax)
        ln_a = ln_a + math.log(2.0)
        a0 = 2.0 * s0 - 1.0
        sign[0], ln_a[0] = (math.copysign(1.0, a0), math.log(abs(a0))) if a0 != 0 else (0.0, -np.inf)
        return sign, ln_a, 1.0
    if kind == "abs":  # |u| = max(0, u) + max(0, -u): a_k (1 + (-1)^k)
        sign, ln_a, _ = _ridge_coefficients(p, 0.0, kmax)
        odd = np.arange(kmax + 1) % 2 == 1
        sign = np.where(odd, 0.0, sign)
        ln_a = np.where(odd, -np.inf, ln_a + math.log(2.0))
        return sign, ln_a, 1.0 / p
    raise ValueError(f"unknown target kind {kind!r}")
