"""The Scattering tab: the Morlet filter bank (space, frequency, Littlewood–Paley sum), the
scattering coefficients of one image per (scale, orientation), and Mallat's Fourier-modulus
counterexample, live.

The panel is a view of :class:`ntkviz.models.scattering.ScatteringModel`, in parts: the
controls (``_controls``), the figures (``_figures``) and the panel that puts them together
(``_view``).
"""
from ntkviz.gui.panels.scattering._view import QtScatteringPanel

__all__ = ["QtScatteringPanel"]
