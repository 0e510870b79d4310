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
    ``TrainConfig`` (with ``frame_steps`` and the ``METRICS`` it records; both light: no
    numba), ``train`` -> ``TrainResult``, ``train_frames``, ``make_setup``, ``tangent_kernel``.
Kernel regression on the sphere (``learning/``)
    ``Target`` (a target function and its Funk–Hecke powers), ``learning_theory``
    (eigenlearning prediction of the test error), ``krr_trial`` (one Monte-Carlo run),
    ``rkhs_norm``, ``gp_samples_on_circle``, ``funk_hecke_partial_sums``; the result types
    and helpers stay in ``ntkviz.core.learning``.
Array checks
    ``check_cosines`` (cosines in [-1, 1]), ``validate_image`` / ``validate_images``
    (finite float64 images of a size the exact kernels accept). Scalars are checked with
    the one family of ``ntkviz._check`` against the ranges of ``ntkviz.limits``.

Values are valid by construction: ``KernelSpec``, ``Layer``, ``Architecture``,
``Deformation`` and ``TrainConfig`` check their fields when built and are never checked
again. Functions that a request calls with arguments it checked once take
``check_input=False`` (``evaluate_kernel``, ``empirical_kernels``, ``mercer_spectrum``,
``decay_guides``, ``image_norms``, ``deform_image``, ``stability_sweep``).

The concepts live in one folder each: ``kernels/`` (arc-cosine, deep and activation
duals, the ``KernelSpec`` front end, finite-width empirical kernels), ``spectra/`` (Mercer
eigenvalues), ``conv/`` (architectures, the numba engine, pairs and Gram matrices),
``deformations/`` (deformations, digits and images, probes, the maps compared, stability
sweeps), ``scattering/`` (the scattering transform and the Fourier modulus), ``training/`` (lazy
training dynamics) and ``learning/`` (kernel regression on the sphere); ``_validate``
holds the array checks they share.

Only the names above resolve here; every other name is reached from its module
(``ntkviz.core.conv.architecture.pooling_matrix``). Every numba kernel is
``@njit(nogil=True, cache=True)``; slow NumPy references used by the tests live in a
private ``_reference`` module in each folder. This package never imports PySide6 or
pyqtgraph.
"""
import importlib as _importlib

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
    # lazy-training dynamics (the parameters from the light module: no numba)
    "training._train_config": ("TrainConfig", "METRICS", "frame_steps"),
    "training.dynamics": ("train", "TrainResult", "train_frames", "make_setup", "tangent_kernel"),
    # kernel regression on the sphere
    "learning": ("Target", "learning_theory", "krr_trial", "rkhs_norm", "gp_samples_on_circle",
                 "funk_hecke_partial_sums"),
    # array checks
    "_validate": ("check_cosines", "validate_image", "validate_images"),
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
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(_importlib.import_module(f"{__name__}.{_API[name]}"), name)
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
