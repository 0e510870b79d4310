"""ntkviz.core: the Qt-free numeric core (numpy, scipy, numba only).

The public API is the short list in ``__all__`` (loaded lazily, PEP 562):

Dot-product kernels κ(u) on the sphere (``u`` the cosine of two unit inputs)
    ``KernelSpec`` (name ``arccos0``/``arccos1``/``ntk``/``nngp``, depth L, bias β,
    activation, normalize), ``evaluate_kernel(spec, u) -> (κ(u), κ'(u))``,
    ``kernel_at_one``, the arc-cosine maps ``kappa0``, ``kappa1``, ``kappa_ntk``, the
    deep recursions ``deep_ntk``, ``deep_nngp``, ``dual_kernel`` (one layer of any
    activation), finite-width ``empirical_kernels`` / ``EmpiricalKernels``, and the
    choices ``KERNEL_NAMES``, ``ACTIVATIONS``.
Mercer spectra on ``S^{p-1}``
    ``mercer_spectrum(spec, dim, kmax) -> Spectrum`` (μ_k, ``log10_mu`` also far below
    1e-308, error estimates, trust flags), ``multiplicity`` / ``log10_multiplicity``
    (``N(p, k)``), ``decay_guides`` (asymptotic rates).
Convolutional CKN / NTK on images
    ``Layer``, ``Architecture``, ``PRESETS`` (M1..M4), ``architecture_from_dict`` /
    ``architecture_to_dict``, ``image_norms`` (per-image pass, cached) -> ``ImageNorms``,
    ``cross_kernels``, ``rel_distances``, ``gram_matrix`` and ``gram_iter`` (progress).
Deformations and digits
    ``Deformation``, ``deform_image``, ``displacement_field``, ``smooth_field``,
    ``warp``, ``tau_sup_norm``, ``jacobian_sup_norm``; ``load_digits``, ``digit_image``,
    ``load_user_image``.
Stability sweeps
    ``stability_sweep`` -> ``SweepResult``, ``fit_loglog_slope``, ``FAMILIES``.
Lazy-training dynamics
    ``TrainConfig``, ``train`` -> ``TrainResult``, ``train_frames``, ``make_setup``,
    ``tangent_kernel``.

Every other name stays reachable from its module (``ntkviz.core.cntk.pooling_matrix``)
and, for compatibility, as ``ntkviz.core.<name>``, but is not part of the curated API.
Every numba kernel is ``@njit(nogil=True, cache=True)``; slow NumPy references used by
the tests live in ``_reference_*`` modules. This package never imports PySide6 or
pyqtgraph.
"""
import importlib as _importlib

#: the modules, in dependency order; any name in their ``__all__`` resolves lazily here
_MODULES = ("_validate", "arccos", "deep", "activations", "dotkernel", "empirical", "mercer",
            "cntk", "deform", "digits", "stability", "dynamics")

#: the curated public API: name -> module
_API = {
    # dot-product kernels
    "KernelSpec": "dotkernel", "evaluate_kernel": "dotkernel", "kernel_at_one": "dotkernel",
    "KERNEL_NAMES": "dotkernel", "ACTIVATIONS": "dotkernel",
    "kappa0": "arccos", "kappa1": "arccos", "kappa_ntk": "arccos",
    "deep_ntk": "deep", "deep_nngp": "deep", "dual_kernel": "activations",
    "empirical_kernels": "empirical", "EmpiricalKernels": "empirical",
    # Mercer spectra
    "mercer_spectrum": "mercer", "Spectrum": "mercer", "multiplicity": "mercer",
    "log10_multiplicity": "mercer", "decay_guides": "mercer",
    # convolutional kernels
    "Layer": "cntk", "Architecture": "cntk", "PRESETS": "cntk",
    "architecture_from_dict": "cntk", "architecture_to_dict": "cntk", "image_norms": "cntk",
    "ImageNorms": "cntk", "cross_kernels": "cntk", "rel_distances": "cntk",
    "gram_matrix": "cntk", "gram_iter": "cntk",
    # deformations and digits
    "Deformation": "deform", "deform_image": "deform", "displacement_field": "deform",
    "smooth_field": "deform", "warp": "deform", "tau_sup_norm": "deform",
    "jacobian_sup_norm": "deform",
    "load_digits": "digits", "digit_image": "digits", "load_user_image": "digits",
    # stability sweeps
    "stability_sweep": "stability", "SweepResult": "stability", "fit_loglog_slope": "stability",
    "FAMILIES": "stability",
    # lazy-training dynamics
    "TrainConfig": "dynamics", "train": "dynamics", "TrainResult": "dynamics",
    "train_frames": "dynamics", "make_setup": "dynamics", "tangent_kernel": "dynamics",
}

__all__ = list(_API)


def __getattr__(name: str):
    """Import a name on first use (PEP 562): ``ntkviz.core.evaluate_kernel`` loads only the
    modules it needs, which keeps the app's start-up short."""
    modules = (_API[name],) if name in _API else _MODULES
    for module in modules:
        mod = _importlib.import_module(f"{__name__}.{module}")
        if name in getattr(mod, "__all__", ()):
            value = globals()[name] = getattr(mod, name)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
