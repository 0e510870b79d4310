"""Qt-free request -> response layer shared by the GUI workers, the CLI and the tests.

A request is a frozen dataclass holding every parameter (and read-only input
arrays) a computation needs; it validates them in ``__post_init__`` (``ValueError``
naming the argument, what is wrong and the allowed range), so the numba kernels
stay lean. Calling a request returns an immutable response; long jobs also offer
``iterate()``, a generator of :class:`Progress` items that can be stopped between
items and that returns the response (the protocol: :class:`Request`,
:class:`LongRequest`).

The public API is the short list in ``__all__`` (loaded lazily, PEP 562):

The protocol
    ``Progress`` (one step of a long request), ``Request``, ``LongRequest`` (``typing``
    protocols) and ``run_to_end`` (run a request's ``iterate()`` to its response).
Kernel curves and Mercer spectra (the panels)
    ``KernelCurveRequest`` -> ``KernelCurveResponse``, ``SpectrumRequest`` ->
    ``SpectrumResponse``.
Tables of the command line (``ntkviz kernel``, ``ntkviz spectrum``)
    ``KernelTableRequest`` -> ``KernelTable``, ``SpectrumTableRequest`` -> ``SpectrumTable``.
Deformations and stability
    ``DeformRequest`` -> ``DeformResponse``, ``ContextRequest`` -> ``ContextResult``,
    ``StabilityRequest`` (-> the core's ``SweepResult``); the editor's tables
    ``CONTEXT_CATEGORIES``, ``context_table``, ``deform_csv_table``;
    ``StabilitySetsRequest`` -> ``SetsResult`` (one digit against four sets, Fig. 1).
The scattering transform (the Scattering tab)
    ``ScatteringViewRequest`` -> ``ScatteringViewResponse`` (filter bank, coefficients of one
    image, the Fourier-modulus counterexample; module ``_scattering``).
Lazy training
    ``TrainRequest`` -> ``TrainResponse``; ``LazySweepRequest`` -> ``LazySweepResponse``
    (sweeps over the output scale α and the width), ``LazySweepSetRequest`` ->
    ``LazySweepSetResponse`` (one such sweep per scaling of the width).
Classification of digits
    ``ClassifyRequest`` -> ``ClassifyResponse``.
Kernel regression on the sphere
    ``LearningTheoryRequest`` -> ``LearningTheoryResponse``, ``LearningMonteCarloRequest``
    -> ``LearningMonteCarloResponse``, ``GeneralisationRequest`` -> ``GeneralisationResponse``.
Kernel regression on data
    ``GramSpectrumRequest`` -> ``GramSpectrumResponse`` (spectrum of a Gram matrix, label
    alignment), ``DataTheoryRequest`` -> ``DataTheoryResponse`` (theory against measurement
    on a pool, the certificate with true and random labels); ``ClassifyTheoryRequest`` ->
    ``ClassifyTheoryResponse`` (the same for the Classification tab's kernels on bundled digits).

Modules: ``_run`` (the protocol), ``_curves`` (kernel curves, spectra), ``_tables`` (the
CLI's tables), ``_deform`` (deformation editor, stability sweep), ``_stability_sets`` (the
sets of Fig. 1), ``_training`` (lazy training), ``_lazy_sweep`` (lazy ↔ rich sweeps),
``_classify`` (kernel-ridge classification of digits), ``_classify_theory`` (its spectrum &
theory), ``_learning`` (kernel regression
on the sphere), ``_data_theory`` (spectra of Gram matrices and the theory on a data pool). Their
other names (progress items, sub-requests, helpers) are reached
from the module. Importing this package loads none of them: ``from ntkviz.jobs import
SpectrumRequest`` loads only the module that defines it, which keeps the app's start-up
and ``ntkviz --help`` short.
"""
import importlib as _importlib

#: the curated public API, by module (in this order in ``__all__``)
_API_BY_MODULE = {
    "_run": ("Progress", "Request", "LongRequest", "run_to_end"),
    "_curves": ("KernelCurveRequest", "KernelCurveResponse", "SpectrumRequest", "SpectrumResponse"),
    "_tables": ("KernelTableRequest", "KernelTable", "SpectrumTableRequest", "SpectrumTable"),
    "_deform": ("DeformRequest", "DeformResponse", "ContextRequest", "ContextResult",
                "StabilityRequest", "CONTEXT_CATEGORIES", "context_table", "deform_csv_table"),
    "_stability_sets": ("StabilitySetsRequest", "SetsResult"),
    "_scattering": ("ScatteringViewRequest", "ScatteringViewResponse"),
    "_training": ("TrainRequest", "TrainResponse"),
    "_lazy_sweep": ("LazySweepRequest", "LazySweepResponse", "LazySweepSetRequest",
                    "LazySweepSetResponse"),
    "_classify": ("ClassifyRequest", "ClassifyResponse"),
    "_learning": ("LearningTheoryRequest", "LearningTheoryResponse", "LearningMonteCarloRequest",
                  "LearningMonteCarloResponse", "GeneralisationRequest", "GeneralisationResponse"),
    "_data_theory": ("GramSpectrumRequest", "GramSpectrumResponse", "DataTheoryRequest",
                     "DataTheoryResponse"),
    "_classify_theory": ("ClassifyTheoryRequest", "ClassifyTheoryResponse"),
}
#: name -> module
_API = {name: module for module, names in _API_BY_MODULE.items() for name in names}

__all__ = list(_API)


def __getattr__(name: str):
    """Import a name on first use (PEP 562)."""
    if name not in _API:
        # also a probe such as PySide6's import hook asking for ``__wrapped__``
        # (inspect.unwrap): it must not import every job module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(_importlib.import_module(f"{__name__}.{_API[name]}"), name)
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
