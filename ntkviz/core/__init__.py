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
from ntkviz.core._validate import *  # noqa: F401,F403
from ntkviz.core.arccos import *  # noqa: F401,F403
from ntkviz.core.deep import *  # noqa: F401,F403
from ntkviz.core.activations import *  # noqa: F401,F403
from ntkviz.core.dotkernel import *  # noqa: F401,F403
from ntkviz.core.empirical import *  # noqa: F401,F403
from ntkviz.core.mercer import *  # noqa: F401,F403
from ntkviz.core.cntk import *  # noqa: F401,F403
from ntkviz.core.deform import *  # noqa: F401,F403
from ntkviz.core.digits import *  # noqa: F401,F403
from ntkviz.core.stability import *  # noqa: F401,F403
from ntkviz.core.dynamics import *  # noqa: F401,F403
