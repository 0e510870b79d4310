"""Everything Qt lives here (PySide6 + pyqtgraph).

Importing this package first applies :func:`ntkviz.gui._compat.protect_singletons`
(a PySide6 6.12 reference-counting bug on Python < 3.12 would otherwise abort
the interpreter after a few thousand Qt calls).
"""
from ntkviz.gui._compat import protect_singletons as _protect_singletons

_protect_singletons()
