"""Qt-free request -> response layer shared by the GUI workers, the CLI and the tests.

A request is a frozen dataclass holding every parameter (and read-only input
arrays) a computation needs; calling it returns an immutable response. Requests
validate their parameters at the edge (``ValueError`` naming the argument) so
the numba kernels stay lean. Modules: ``_curves`` (kernel curves, spectra),
``_deform`` (deformation editor, stability sweep), ``_training`` (lazy training).
"""
from ntkviz.jobs._curves import *  # noqa: F401,F403
from ntkviz.jobs._deform import *  # noqa: F401,F403
from ntkviz.jobs._training import *  # noqa: F401,F403
from ntkviz.jobs._tables import *  # noqa: F401,F403
from ntkviz.jobs._classify import *  # noqa: F401,F403
from ntkviz.jobs._learning import *  # noqa: F401,F403
