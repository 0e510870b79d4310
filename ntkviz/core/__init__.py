"""ntkviz.core: the Qt-free numeric core (numpy, scipy, numba only).

Public API, re-exported from private modules (each module's ``__all__``):

* dot-product kernels κ(u) and their derivatives: ``arccos``, ``deep``,
  ``activations``, ``dotkernel`` (the unified :class:`KernelSpec` front end);
* finite-width empirical kernels: ``empirical``;
* Mercer spectra on the sphere: ``mercer``;
* convolutional CKN / NTK on images, deformations, digits, stability sweeps:
  ``cntk``, ``deform``, ``digits``, ``stability``;
* lazy-training dynamics: ``dynamics``.

Every numba kernel is ``@njit(nogil=True, cache=True)``; slow NumPy references
used by the tests live in ``_reference_*`` modules. This package must never
import PySide6 or pyqtgraph (``tests/test_boundaries.py`` enforces it).
"""
import importlib as _importlib

#: the public modules, in dependency order; their ``__all__`` make up this package's API
_MODULES = ("_validate", "arccos", "deep", "activations", "dotkernel", "empirical", "mercer",
            "cntk", "deform", "digits", "stability", "dynamics")


def __getattr__(name: str):
    """Import public names on first use (PEP 562): ``import ntkviz.core.dotkernel`` or
    ``ntkviz.core.evaluate_kernel`` loads only the modules it needs, which keeps the
    app's start-up short; ``from ntkviz.core import *`` and ``__all__`` load everything."""
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
