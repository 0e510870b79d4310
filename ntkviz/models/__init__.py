"""Qt-free parameter models, one per panel (see :mod:`ntkviz.models._base`).

A model holds a panel's validated parameters, builds its request and
(de)serialises its session entry; the GUI view observes it, the CLI's
``export`` commands fill it from arguments. Importing this package loads no Qt,
numba or scipy.
"""
from ntkviz.models._base import ParamModel, parse_params
from ntkviz.models._options import Option, Requires, View, option, options_of

__all__ = ["ParamModel", "parse_params", "Option", "Requires", "View", "option", "options_of"]
