"""A panel is one declared unit: a small panel defined here — a model, a view and one
``PanelSpec`` — gets its tab, ``ntkviz gui --tab``, sessions, ``ntkviz export`` (PNG, SVG,
CSV, its options refused by name) and the gallery's checks, with no other edit."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.plot_style import make_plot, pen
from ntkviz.models import ParamModel, View, option
from ntkviz.panels import PanelSpec, registered

A_RANGE = (0.0, 10.0)


# ------------------------------------------------------------------ the model (Qt-free)
@dataclass(frozen=True)
class ParabolaRequest:
    """y = a x² on ``points`` equally spaced x in [-1, 1], and its slope 2 a x."""

    heavy: ClassVar[bool] = False
    iterated: ClassVar[bool] = False

    a: float
    points: int

    def __call__(self):
        x = np.linspace(-1.0, 1.0, self.points)
        return ParabolaResponse(self, x, self.a * x ** 2, 2.0 * self.a * x)


@dataclass(frozen=True, eq=False)
class ParabolaResponse:
    request: ParabolaRequest
    x: np.ndarray
    y: np.ndarray
    slope: np.ndarray

    def csv_table(self, view: str):
        values = {"curve": self.y, "slope": self.slope}[view]
        return ["x", view], [[float(a), float(b)] for a, b in zip(self.x, values)]


@dataclass(frozen=True)
class ParabolaParams:
    a: float = option(1.0, "--a", "the coefficient a in [0, 10]")
    points: int = option(21, "--points", "grid points in [3, 401]")

    def __post_init__(self):
        if not A_RANGE[0] <= self.a <= A_RANGE[1]:
            raise ValueError(f"a must be in [0, 10], got {self.a}")
        if not 3 <= self.points <= 401:
            raise ValueError(f"points must be in [3, 401], got {self.points}")


class ParabolaModel(ParamModel):
    Params = ParabolaParams
    views = (View("curve", "y = a x²"), View("slope", "dy/dx = 2 a x"))

    @classmethod
    def build_request(cls, params):
        return ParabolaRequest(params.a, params.points)

    @classmethod
    def gallery_cases(cls):
        return {"default": {}, "steep": {"a": 10.0, "points": 401}}


# ------------------------------------------------------------------------ the view
class QtParabolaPanel(QtPanel):
    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        from PySide6 import QtWidgets

        self.plots = {"curve": make_plot("y = a x²", "x", "y"),
                      "slope": make_plot("dy/dx = 2 a x", "x", "slope")}
        self.curves = {name: w.plot([], [], pen=pen(0), name=name)
                       for name, w in self.plots.items()}
        lay = QtWidgets.QHBoxLayout(self)
        for w in self.plots.values():
            lay.addWidget(w)

    def apply_response(self, r) -> None:
        self.curves["curve"].setData(r.x, r.y)
        self.curves["slope"].setData(r.x, r.slope)

    def plot_items(self):
        return {name: w.getPlotItem() for name, w in self.plots.items()}


SPEC = PanelSpec("parabola", "Parabola", f"{__name__}:ParabolaModel",
                 f"{__name__}:QtParabolaPanel", aliases=("quadratic",))


@pytest.fixture
def parabola():
    with registered(SPEC):
        yield SPEC


def read_csv(path):
    with open(path) as fh:
        return list(csv.reader(fh))


# ----------------------------------------------------------------------- the tests
def test_its_tab_draws_the_model_and_its_session_round_trips(qtbot, dispatcher, settings,
                                                            parabola, tmp_path):
    from ntkviz.gui.main_window import MainWindow

    window = MainWindow(dispatcher, settings, panels=["kernel", "parabola"])
    qtbot.addWidget(window)
    window.show()
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert titles == ["Kernel curves", "Parabola"]
    panel = window.panels["parabola"]
    assert (panel.key, panel.title, type(panel.model)) == ("parabola", "Parabola", ParabolaModel)
    with qtbot.waitSignal(panel.computed, timeout=30000):
        window.start()
        window.show_panel("quadratic")  # an alias finds it too
    with qtbot.waitSignal(panel.computed, timeout=30000):
        panel.model.update(a=3.0)
    x = np.linspace(-1, 1, 21)
    np.testing.assert_allclose(panel.curves["curve"].yData, 3.0 * x ** 2, rtol=0, atol=1e-15)
    path = tmp_path / "s.json"
    window.save_session(path)
    assert json.loads(path.read_text())["panels"]["parabola"] == {"a": 3.0, "points": 21}
    panel.model.update(a=5.0)
    assert window.open_session(path) and panel.model.params.a == 3.0
    for suffix in (".png", ".svg", ".csv"):
        window.export_current(tmp_path / f"p{suffix}", "slope", 400)
    assert [float(r[1]) for r in read_csv(tmp_path / "p.csv")[1:]] == pytest.approx(6.0 * x)
    bad = {"app": "ntkviz", "panels": {"parabola": {"a": 11.0}}}
    path.write_text(json.dumps(bad))
    assert not window.open_session(path)
    assert "panels.parabola: a must be in [0, 10], got 11.0" in window.error_text()


def test_ntkviz_export_is_generated_from_its_model(parabola, tmp_path, capsys):
    from PySide6 import QtGui

    from ntkviz.cli import main

    out = tmp_path / "p.csv"
    assert main(["export", "parabola", "--a", "2.5", "--points", "5", "--out", str(out)]) == 0
    rows = read_csv(out)
    assert rows[0] == ["x", "curve"]
    np.testing.assert_allclose([[float(v) for v in r] for r in rows[1:]],
                               [[x, 2.5 * x * x] for x in np.linspace(-1, 1, 5)])
    for suffix in (".png", ".svg"):
        assert main(["export", "quadratic", "--view", "slope", "--width", "500",
                     "--out", str(tmp_path / f"p{suffix}")]) == 0
    assert QtGui.QImage(str(tmp_path / "p.png")).width() == 500
    assert "dy/dx" in (tmp_path / "p.svg").read_text()
    capsys.readouterr()
    assert main(["export", "parabola", "--a", "12", "--out", str(tmp_path / "bad.csv")]) == 2
    assert capsys.readouterr().err.strip().endswith("--a: a must be in [0, 10], got 12.0")
    assert not (tmp_path / "bad.csv").exists()


def test_the_gallery_renders_and_checks_it(parabola, tmp_path):
    from ntkviz.gallery import render_gallery

    report = render_gallery(tmp_path, reduced=True, panels=["parabola"], log=lambda _: None)
    assert report.problems == []
    names = sorted(p.name for p in report.files)
    assert names == sorted([f"{v}_{s}.{e}" for v in ("curve", "slope")
                            for s in ("640x400", "2400x1500") for e in ("png", "svg")]
                           + ["curve.csv", "slope.csv"])


GUI_TAB = """
import sys
sys.path.insert(0, {folder!r})
import {module} as dummy
from ntkviz.cli import main
from ntkviz.panels import registered

with registered(dummy.SPEC):
    sys.exit(main(["gui", "--tab", "parabola", "--session", {session!r},
                   "--screenshot", {shot!r}]))
"""


def test_gui_tab_opens_it_with_a_session(tmp_path):
    session = tmp_path / "s.json"
    session.write_text(json.dumps({"app": "ntkviz", "session_format": 1, "current": "parabola",
                                   "panels": {"parabola": {"a": 7.0}}}))
    shot = tmp_path / "shot.png"
    here = Path(__file__)
    code = GUI_TAB.format(folder=str(here.parent), module=here.stem, session=str(session),
                          shot=str(shot))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    from PySide6 import QtGui

    assert QtGui.QImage(str(shot)).width() > 200
