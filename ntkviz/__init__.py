"""ntkviz: a desktop explorer for neural tangent kernel theory.

Importing the package is cheap and Qt-free; it only prepares the process
environment (numba cache directory, Qt binding choice) before numba or Qt load.
"""
__version__ = "0.1.0"
APP_ID = "io.github.ntkviz.Ntkviz"

from ntkviz import _env as _env  # noqa: E402

_env.configure()
