"""One front end for every dot-product kernel κ(u) on the sphere.

A :class:`KernelSpec` names a kernel; :func:`evaluate_kernel` returns its value
and derivative d/du at cosines u. Conventions: paper normalisation (NTK parameterisation with c_σ = 1/E[σ(z)²], ReLU
c = 2), so the deep ReLU NTK has NTK_L(1) = L and NNGP_L(1) = 1;
``normalize=True`` divides by the value at u = 1 (for ReLU without bias the
"1/L" NTK). Kernels:

* ``arccos0`` κ0(u) = (π − arccos u)/π and ``arccos1`` κ1(u) (single dual maps:
  depth 2, bias 0, relu only);
* ``ntk`` NTK_L and ``nngp`` NNGP_L of an L-layer fully-connected network
  (depth 2..50, any activation, bias variance β >= 0), by the recursion of
  :mod:`ntkviz.core.kernels.deep`. ``ntk`` at depth 2 with relu is κ = uκ0 + κ1.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ntkviz import limits as _limits
from ntkviz._check import check_bool, check_choice, check_float, check_int
from ntkviz.core.kernels.activations import ACTIVATIONS
from ntkviz.core.kernels.arccos import arccos_kernel, flat_cosines
from ntkviz.core.kernels.deep import _deep_kernel

__all__ = ["KernelSpec", "KERNEL_NAMES", "ACTIVATIONS", "evaluate_kernel", "kernel_at_one"]

KERNEL_NAMES: tuple[str, ...] = _limits.KERNEL_NAMES

_LABELS = {"arccos0": "κ0 (arc-cosine 0)", "arccos1": "κ1 (arc-cosine 1)", "ntk": "NTK", "nngp": "NNGP"}


@dataclass(frozen=True)
class KernelSpec:
    """A dot-product kernel on the sphere, valid by construction.

    Attributes
    ----------
    name : str
        ``arccos0`` | ``arccos1`` | ``ntk`` | ``nngp``.
    depth : int
        L, the number of weight layers, in ``limits.DEPTH_RANGE`` = [2, 50] (arccos kernels: 2).
    bias : float
        β, variance of the bias added at every layer, in ``limits.BIAS_RANGE`` = [0, 100]
        (arccos kernels: 0).
    activation : str
        One of :data:`ACTIVATIONS` (arccos kernels: relu).
    normalize : bool
        Divide by the kernel's value at u = 1.

    Construction checks every field (``ValueError`` naming the field and its range) and
    normalises the types (``depth=3.0`` is stored as ``3``), so a ``KernelSpec`` is never
    checked again.
    """

    name: str = "ntk"
    depth: int = 2
    bias: float = 0.0
    activation: str = "relu"
    normalize: bool = False

    def __post_init__(self):
        name = check_choice("name", self.name, KERNEL_NAMES)
        depth = check_int("depth", self.depth, _limits.DEPTH_RANGE)
        bias = check_float("bias", self.bias, _limits.BIAS_RANGE)
        activation = check_choice("activation", self.activation, ACTIVATIONS)
        normalize = check_bool("normalize", self.normalize)
        if name in _limits.ARCCOS_KERNELS:
            if depth != 2:
                raise ValueError(f"depth must be 2 for {name} (a single dual map), got {depth}")
            if bias != 0.0:
                raise ValueError(f"bias must be 0 for {name}, got {bias!r}")
            if activation != "relu":
                raise ValueError(f"activation must be relu for {name}, got {activation!r}")
        if name == "ntk" and normalize and activation == "step":
            raise ValueError("normalize is undefined for the step-activation NTK "
                             "(σ' is a Dirac delta: the NTK is infinite at u = 1)")
        for field, value in (("depth", depth), ("bias", bias), ("normalize", normalize)):
            object.__setattr__(self, field, value)

    def replace(self, **changes) -> "KernelSpec":
        """A copy with some fields changed (checked as any new spec)."""
        return replace(self, **changes)

    @property
    def label(self) -> str:
        """Legend text, e.g. ``"NTK L=3 (relu)"``."""
        if self.name.startswith("arccos"):
            text = _LABELS.get(self.name, self.name)
        else:
            text = f"{_LABELS.get(self.name, self.name)} L={self.depth} ({self.activation})"
            if self.bias:
                text += f" β={self.bias:g}"
        if self.normalize and not self.name.startswith("arccos"):
            text += " /κ(1)"
        return text


def evaluate_kernel(spec: KernelSpec, u, *, check_input: bool = True
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Value κ(u) and derivative κ'(u) of the kernel ``spec`` at cosines ``u``.

    ``u`` may have any shape (the outputs have the same shape; a scalar gives 0-d arrays); values outside
    [-1, 1] by more than rounding, or NaN, raise ``ValueError``. Infinite
    derivatives are ±inf (e.g. the ReLU NTK at u = ±1), never NaN. ``check_input=False``
    skips the check of ``u`` for a caller that passes a float64 array in [-1, 1] it made
    itself (a request's ``linspace``).
    """
    if not isinstance(spec, KernelSpec):
        raise ValueError(f"spec must be a KernelSpec, got {type(spec).__name__}")
    if check_input:
        flat, shape = flat_cosines(u)
        u = flat.reshape(shape)
    u = np.asarray(u, dtype=np.float64)
    flat = np.ascontiguousarray(u.reshape(-1))
    if spec.name in _limits.ARCCOS_KERNELS:
        value = np.empty_like(flat)
        deriv = np.empty_like(flat)
        arccos_kernel(flat, 0 if spec.name == "arccos0" else 1, value, deriv)
    else:
        value, deriv = _deep_kernel(flat, spec.depth, spec.name == "ntk", spec.bias, spec.activation,
                                    spec.normalize)
    return tuple(np.asarray(a).reshape(u.shape) for a in (value, deriv))


def kernel_at_one(spec: KernelSpec) -> float:
    """κ(1) for ``spec`` (1 when normalised; ReLU without bias: NTK L, NNGP 1; step NTK: inf)."""
    return float(evaluate_kernel(spec, np.ones(1), check_input=False)[0][0])
