"""The stability figure's legend shows each curve in its own colour, before and after a sweep."""
from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui

TIMEOUT = 120000
SMALL = {"family": "smooth", "digits": [0, 100], "amplitude_min": 0.05, "amplitude_max": 1.0,
         "amplitude_count": 2, "seeds": 1, "first_seed": 3, "architecture": "M1",
         "reference_per_class": 2}


def sample_colours(sample) -> set[tuple[int, int, int]]:
    """The colours a legend sample paints (on white), without the anti-aliased blends."""
    image = QtGui.QImage(20, 20, QtGui.QImage.Format.Format_ARGB32)
    image.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(image)
    try:
        sample.paint(painter, None, None)
    finally:
        painter.end()
    counts: dict = {}
    for x in range(20):
        for y in range(20):
            c = image.pixelColor(x, y)
            key = (c.red(), c.green(), c.blue())
            counts[key] = counts.get(key, 0) + 1
    return {c for c, n in counts.items() if n >= 6 and c != (255, 255, 255)}


@pytest.fixture
def panel(qtbot, dispatcher):
    from ntkviz.gui.panels.stability import QtStabilityPanel

    p = QtStabilityPanel(dispatcher)
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    return p


def test_legend_markers_have_their_curves_colours(qtbot, panel):
    """The marker of each map's legend entry (a disc on the line) is its curve's colour:
    pyqtgraph drew it grey from a scatter that had no data yet."""
    from ntkviz.gui.panels.stability import MAPS

    def check():
        for key, _, _ in MAPS:
            curve = panel.curves[key]
            sample = next(s for s, _ in panel.legend.items if s.item is curve)
            want = curve.opts["pen"].color()
            assert (want.red(), want.green(), want.blue()) in sample_colours(sample), key
            grey = {(0x96, 0x96, 0x96), (0x64, 0x64, 0x96)}  # pyqtgraph's default symbol
            assert not grey & sample_colours(sample), key

    check()
    panel.set_state({**panel.state(), **SMALL})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()
    assert panel.result is not None
    check()
    assert QtCore.QRectF(panel.legend.sceneBoundingRect()).isValid()
