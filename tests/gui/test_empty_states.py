"""Before its first result every plot of every panel shows a clean empty state: no
arbitrary range (an empty view has no tick labels, unless its axis has fixed ticks of a true
range such as accuracy 0 … 1 or an angle 0 … 2π), no overlapping tick labels, and a note
(``computing…``, or what to press) instead of nothing."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6 import QtWidgets

from ntkviz.panels import keys, view_class


def plots_of(item) -> list:
    out, stack = [], [item]
    while stack:
        it = stack.pop()
        if isinstance(it, pg.PlotItem) and it.isVisible() and it.getViewBox().isVisible():
            out.append(it)
        stack.extend(it.childItems())
    return out


def note_of(view) -> str:
    """The text of the notes shown on ``view`` (text items, or notes that paint their text)."""
    texts = []
    for c in view.childItems():
        if c.isVisible():
            text = c.textItem.toPlainText() if hasattr(c, "textItem") else \
                c.text() if callable(getattr(c, "text", None)) else ""
            texts.append(text)
    return " ".join(texts)


def holds_data(view) -> bool:
    for it in view.addedItems:
        if not it.isVisible() or isinstance(it, (pg.InfiniteLine, pg.TextItem)):
            continue
        if isinstance(it, pg.ImageItem):
            if it.image is not None:
                return True
        elif isinstance(it, QtWidgets.QGraphicsPixmapItem):  # a colour bar
            return True
        elif isinstance(it, pg.BarGraphItem):
            if len(it.opts.get("height", [])):
                return True
        elif hasattr(it, "getData"):
            x, _ = it.getData()
            if x is not None and len(x):
                return True
        elif getattr(it, "xData", None) is not None and len(it.xData):
            return True
    return False


@pytest.mark.parametrize("key", keys())
def test_plots_before_the_first_result_are_cleanly_empty(qtbot, dispatcher, drawn_ticks, key):
    panel = view_class(key)(dispatcher)  # built, shown, never started
    qtbot.addWidget(panel)
    panel.resize(1200, 700)
    panel.show()
    qtbot.waitExposed(panel)
    for view, item in panel.plot_items().items():
        for plot in plots_of(item):
            vb = plot.getViewBox()
            vb.prepareForPaint()
            if holds_data(vb):
                continue
            assert note_of(vb).strip(), f"{key}/{view}: an empty plot that says nothing"
            for side in ("left", "bottom"):
                axis = plot.getAxis(side)
                if not axis.isVisible() or not axis.style.get("showValues", True):
                    continue
                ticks = drawn_ticks(axis)
                if axis._tickLevels is None:  # no fixed ticks: an empty view has no range
                    assert ticks == [], f"{key}/{view}: {side} ticks {[t for _, t in ticks]}"
                for i, (ri, ti) in enumerate(ticks):
                    for rj, tj in ticks[i + 1:]:
                        assert not ri.intersects(rj), f"{key}/{view}: {ti!r} overlaps {tj!r}"
