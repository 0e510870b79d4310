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
    ``stability_sweep`` -> ``SweepResult``, ``fit_loglog_slope``, ``FAMILIES``; the maps
    compared (``MAPS``: ckn, ntk, scattering, fourier, pixels) and their distances ``map_distances``.
Scattering transform and Fourier modulus
    ``scattering_transform`` (``S_J``, orders 0-2, Morlet wavelets) with ``ScatteringParams``,
    ``fourier_modulus``; the Gabor probe ``gabor_image`` and the ``dilation`` tau(u) = s u.
Lazy-training dynamics
    ``TrainConfig``, ``train`` -> ``TrainResult``, ``train_frames``, ``make_setup``,
    ``tangent_kernel``.

The concepts live in one folder each: ``kernels/`` (arc-cosine, deep and activation
duals, the ``KernelSpec`` front end, finite-width empirical kernels), ``spectra/`` (Mercer
eigenvalues), ``conv/`` (architectures, the numba engine, pairs and Gram matrices),
``deformations/`` (deformations, digits and images, probes, the maps compared, stability
sweeps), ``scattering/`` (the scattering transform and the Fourier modulus), ``training/`` (lazy
training dynamics) and ``learning/`` (kernel regression on the sphere); ``_validate``
holds the argument checks they share.

Every other name stays reachable from its module (``ntkviz.core.conv.architecture.pooling_matrix``)
and, for compatibility, as ``ntkviz.core.<name>``, but is not part of the curated API.
Every numba kernel is ``@njit(nogil=True, cache=True)``; slow NumPy references used by
the tests live in a private ``_reference`` module in each folder. This package never
imports PySide6 or pyqtgraph.
"""
import importlib as _importlib

#: the modules, in dependency order; any name in their ``__all__`` resolves lazily here
_MODULES = ("_validate", "kernels.arccos", "kernels.deep", "kernels.activations", "kernels.dotkernel",
            "kernels.empirical", "spectra.harmonics", "spectra.mercer", "conv.architecture", "conv.gram", "deformations.deform",
            "deformations.digits", "deformations.probes", "deformations.maps", "deformations.stability",
            "scattering.filters", "scattering.transform", "training.dynamics")

#: the curated public API, by module (in this order in ``__all__``)
_API_BY_MODULE = {
    # dot-product kernels
    "kernels.dotkernel": ("KernelSpec", "evaluate_kernel", "kernel_at_one", "KERNEL_NAMES", "ACTIVATIONS"),
    "kernels.arccos": ("kappa0", "kappa1", "kappa_ntk"),
    "kernels.deep": ("deep_ntk", "deep_nngp"),
    "kernels.activations": ("dual_kernel",),
    "kernels.empirical": ("empirical_kernels", "EmpiricalKernels"),
    # Mercer spectra
    "spectra.mercer": ("mercer_spectrum", "Spectrum", "decay_guides"),
    "spectra.harmonics": ("multiplicity", "log10_multiplicity"),
    # convolutional kernels
    "conv.architecture": ("Layer", "Architecture", "PRESETS", "architecture_from_dict", "architecture_to_dict"),
    "conv.gram": ("image_norms", "ImageNorms", "cross_kernels", "rel_distances", "gram_matrix", "gram_iter"),
    # deformations and digits
    "deformations.deform": ("Deformation", "deform_image", "displacement_field", "smooth_field", "warp",
                            "tau_sup_norm", "jacobian_sup_norm", "dilation"),
    "deformations.digits": ("load_digits", "digit_image", "load_user_image"),
    # stability sweeps
    "deformations.stability": ("stability_sweep", "SweepResult", "fit_loglog_slope", "FAMILIES"),
    "deformations.maps": ("MAPS", "map_distances"),
    # scattering transform and Fourier modulus
    "scattering.transform": ("scattering_transform", "ScatteringParams", "fourier_modulus"),
    "deformations.probes": ("gabor_image",),
    # lazy-training dynamics
    "training.dynamics": ("TrainConfig", "train", "TrainResult", "train_frames", "make_setup", "tangent_kernel"),
}
#: name -> module
_API = {name: module for module, names in _API_BY_MODULE.items() for name in names}

__all__ = list(_API)


def __getattr__(name: str):
    """Import a name on first use (PEP 562): ``ntkviz.core.evaluate_kernel`` loads only the
    modules it needs, which keeps the app's start-up short."""
    if name.startswith("__"):
        # a probe such as PySide6's import hook asking for ``__wrapped__``
        # (inspect.unwrap) must not import every core module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    modules = (_API[name],) if name in _API else _MODULES
    for module in modules:
        mod = _importlib.import_module(f"{__name__}.{module}")
        if name in getattr(mod, "__all__", ()):
            value = globals()[name] = getattr(mod, name)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
