"""The lazy-training panel (declared as ``ntkviz.gui.panels.training:QtTrainingPanel``).

Modules: ``_panel`` (the view: requests, drawing, export), ``_controls`` (the
parameter controls), ``_figure`` (the rows of plots and the legend on one canvas),
``_plots`` (one run's three plots and the legend entries), ``_player`` (the
animation player). Parameters: :mod:`ntkviz.models.training`.
Runs standalone: ``python -m ntkviz.gui.panels.training``.
"""
from ntkviz.gui.panels.training._panel import QtTrainingPanel

__all__ = ["QtTrainingPanel"]
