"""Qt-free request -> response layer shared by the GUI workers, the CLI and the tests.

A request is a frozen dataclass holding every parameter (and read-only input
arrays) a computation needs; it validates them in ``__post_init__`` (``ValueError``
naming the argument, what is wrong and the allowed range), so the numba kernels
stay lean. Calling a request returns an immutable response; long jobs also offer
``iterate()``, a generator of progress items (``fraction``) that can be stopped
between items. Modules: ``_curves`` (kernel curves, spectra), ``_deform``
(deformation editor, stability sweep), ``_training`` (lazy training),
``_classify`` (kernel-ridge classification of digits), ``_learning`` (kernel
regression on the sphere), ``_data_theory`` (spectra of Gram matrices, theory against
measurement on a data pool), ``_tables`` (CSV tables of responses).

Names are imported on first use (PEP 562): ``from ntkviz.jobs import
SpectrumRequest`` loads only the module that defines it, which keeps the app's
start-up and ``ntkviz --help`` short.
"""
import importlib as _importlib

#: the job modules; their ``__all__`` make up this package's API
_MODULES = ("_tables", "_curves", "_deform", "_training", "_classify", "_learning", "_data_theory")


def __getattr__(name: str):
    if name.startswith("__") and name != "__all__":
        # a probe such as PySide6's import hook asking for ``__wrapped__``
        # (inspect.unwrap) must not import every job module
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == "__all__":
        names = [n for m in _MODULES for n in _importlib.import_module(f"{__name__}.{m}").__all__]
        globals()["__all__"] = names
        return names
    for module in _MODULES:
        mod = _importlib.import_module(f"{__name__}.{module}")
        if name in mod.__all__:
            value = globals()[name] = getattr(mod, name)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__getattr__("__all__")))
