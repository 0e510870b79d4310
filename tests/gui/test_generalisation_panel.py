"""Generalisation panel: draws the model's values, Monte-Carlo on its own key, exports."""
import csv

import numpy as np
import pytest

pytest.importorskip("PySide6")

from ntkviz.gui.headless import build_panel, ensure_app  # noqa: E402
from ntkviz.gui.panels.learning import MC_KEY, QtLearningPanel  # noqa: E402


@pytest.fixture(scope="module")
def panel():
    ensure_app()
    p = build_panel(QtLearningPanel, {"kmax": 60, "n": 100}, size=(1200, 800))
    yield p
    p.dispatcher.shutdown()


def test_theory_drawn_matches_response(panel):
    r = panel.response
    th = r.theory.theories[0]
    items = [it for it in panel.plots["curve"].listDataItems() if it.name() in r.theory.labels]
    assert len(items) == len(r.theory.labels)
    x, y = items[0].getData()
    ok = np.isfinite(y)
    np.testing.assert_allclose(10 ** y[ok], th.test_mse[th.trustworthy], rtol=1e-12)
    assert "κ =" in panel.controls.readout.text()


def test_bad_value_reported_and_widget_resynced(panel):
    ridge = panel.controls.ridge_edit
    ridge.setText("-3")
    ridge.editingFinished.emit()
    assert "ridge" in panel.last_error
    assert ridge.text() == f"{panel.model.params.ridge:g}"


def test_display_only_view_switch_redraws(panel):
    for view in ("gp", "partial_sums", "approximation", "fit"):
        panel.model.update(view=view)
        assert panel.plots["view"].listDataItems()
        header, rows = panel.csv_table("view")
        assert rows


def test_monte_carlo_on_its_own_key(panel, qtbot):
    panel.model.update(mc_sizes=(30, 100), seeds=2)
    rid = panel.start_monte_carlo()
    assert rid
    qtbot.waitUntil(lambda: panel.mc_response is not None, timeout=120_000)
    header, rows = panel.csv_table("curve")
    assert "empirical_test_mse" in header
    assert any(r[header.index("empirical_test_mse")] != "" for r in rows)
    legend = [label.text for _, label in panel.plots["curve"].legend.items]
    assert any("Monte-Carlo" in n for n in legend)
    assert MC_KEY != panel.key
    # learned fractions at the current n (= 100, a Monte-Carlo size) on the learnability plot
    marks = [it for it in panel.plots["learnability"].listDataItems()
             if it.opts.get("symbol") == "s"]
    assert marks and np.all(np.abs(marks[0].getData()[1]) < 1.5)


def test_error_bars_are_95_percent_student_t_intervals(panel, qtbot):
    # two seeds: t(0.975, 1 dof) = 12.7062 (tables), so the bar is 12.7 SEM, not ±1 SEM
    import pyqtgraph as pg

    if panel.mc_response is None:
        panel.model.update(mc_sizes=(30, 100), seeds=2)
        panel.start_monte_carlo()
        qtbot.waitUntil(lambda: panel.mc_response is not None, timeout=120_000)
    plot = panel.plots["curve"]
    bars = [it for it in plot.items if isinstance(it, pg.ErrorBarItem)]
    assert len(bars) == len(panel.mc_response.labels)
    for bar, values in zip(bars, panel.mc_response.test_mse):  # values: (n, seeds)
        mean = values.mean(axis=1)
        half = 12.7062 * values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])
        np.testing.assert_allclose(bar.opts["top"], np.log10(mean + half) - np.log10(mean), rtol=1e-4)
        assert plot.viewRange()[1][1] >= np.log10(mean + half).max()  # the whole bar in view
    names = [label.text for _, label in plot.legend.items]
    assert any("95 % CI" in n for n in names) and any("eigenlearning" in n for n in names)
    assert "approximation" in panel.curve_widget.toolTip()


def test_session_restores(panel):
    state = dict(panel.state(), dim=4, target="ridge:0.1", view="gp")
    other = build_panel(QtLearningPanel, state, size=(900, 600))
    try:
        assert other.model.params == panel.model.parse(state)
        assert other.controls.target_edit.text() == "ridge:0.1"
        assert other.controls.view_combo.currentText() == "gp"
        with pytest.raises(ValueError, match="noise"):
            other.set_state({"noise": -1.0})
        assert other.model.params.noise == state["noise"]
    finally:
        other.dispatcher.shutdown()


def test_csv_export_through_cli(tmp_path):
    from ntkviz.cli import main

    out = tmp_path / "l.csv"
    assert main(["export", "learning", "--kmax", "40", "--view", "learnability", "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert rows and 0.0 <= float(rows[0]["learnability"]) <= 1.0


def test_degree_bars_write_the_target(panel):
    panel.model.update(target="1:1,2:1,4:1,7:1")
    bars = panel.controls.bars
    assert [b.value() for b in bars][:8] == [0, 10, 10, 0, 10, 0, 0, 10]
    bars[3].setValue(-5)
    assert panel.model.params.target == "1:1,2:1,3:-0.5,4:1,7:1"
    panel.model.update(target="ridge:0.2")
    assert all(b.value() == 0 for b in bars)


def test_monte_carlo_cancel_resets_the_bar_and_says_where_it_stopped(qtbot):
    """Cancel puts the Monte-Carlo bar back to 0 and says at what fraction it stopped;
    nothing of the cancelled run is drawn. The window's progress names the job."""
    p = build_panel(QtLearningPanel, {"kmax": 60, "n": 100, "mc_sizes": [1500, 3000],
                                      "seeds": 40}, size=(1200, 800))
    try:
        assert p.mc_slot.title == "Generalisation: Monte-Carlo"
        assert p.start_monte_carlo()
        qtbot.waitUntil(lambda: p.controls.progress.value() > 0, timeout=120_000)
        p.controls.mc_cancel.click()
        qtbot.waitUntil(lambda: not p.mc_slot.is_busy(), timeout=120_000)
        qtbot.wait(50)
        assert p.controls.progress.value() == 0
        assert "cancelled at" in p.controls.mc_note.text() and "%" in p.controls.mc_note.text()
        assert p.mc_response is None and p.mc_current() is None
        names = [label.text for _, label in p.plots["curve"].legend.items]  # the points' entry
        assert not any(n and "Monte-Carlo" in n for n in names)
    finally:
        p.dispatcher.shutdown()


def test_monte_carlo_of_other_parameters_is_not_drawn(panel, qtbot):
    panel.model.update(mc_sizes=(30, 100), seeds=2)
    if panel.mc_current() is None:
        panel.start_monte_carlo()
        qtbot.waitUntil(lambda: panel.mc_current() is not None, timeout=120_000)
    names = lambda: [label.text for _, label in panel.plots["curve"].legend.items]  # noqa: E731
    assert any("Monte-Carlo" in n for n in names())
    panel.model.update(mc_sizes=(30, 200))  # display-only for the theory; another Monte-Carlo
    assert not any("Monte-Carlo" in n for n in names())
    assert "parameters changed" in panel.controls.mc_note.text()
    header, rows = panel.csv_table("curve")
    assert "empirical_test_mse" not in header
    panel.model.update(mc_sizes=(30, 100))  # back: the result belongs again
    assert any("Monte-Carlo" in n for n in names())


PI_LABEL = r"^(0|−?[0-9]*π(/[0-9]+)?)$"


def test_angle_axes_read_multiples_of_pi(panel, drawn_ticks):
    """The fit (θ in [−π, π]) and the GP samples (θ in [0, 2π)) label θ in multiples of π,
    the style of the lazy-training predictors: never 0, 1, 2, … radians."""
    import re

    for view, want in (("fit", {"−π", "0", "π"}), ("gp", {"0", "π", "2π"})):
        panel.model.update(view=view)
        plot = panel.plots["view"]
        plot.getViewBox().prepareForPaint()
        labels = [text for _, text in drawn_ticks(plot.getAxis("bottom"))]
        assert labels and all(re.match(PI_LABEL, t) for t in labels), (view, labels)
        assert want <= set(labels), (view, labels)


def test_learning_curve_legend_leaves_room_for_the_curves(qtbot):
    """Three kernels with Monte-Carlo points at 640×400: one legend entry per kernel and one
    per style (lines: theory, points: Monte-Carlo), at most half the plot's area."""
    from ntkviz.gui.export import export_layout

    p = build_panel(QtLearningPanel, {"kmax": 60, "n": 100, "mc_sizes": [30, 60],
                                       "seeds": 2, "kernels": ["ntk", "arccos1", "arccos0"]},
                    size=(1200, 800))
    try:
        p.start_monte_carlo()
        qtbot.waitUntil(lambda: p.mc_response is not None, timeout=120_000)
        item = p.plots["curve"]
        with export_layout(item, (640, 400)):
            legend, view = item.legend, item.getViewBox()
            area = legend.sceneBoundingRect().width() * legend.sceneBoundingRect().height()
            rect = view.sceneBoundingRect()
            assert area <= 0.5 * rect.width() * rect.height(), (area, rect)
            names = [label.text for _, label in legend.items]
            assert len(names) == 3 + 2, names
    finally:
        p.dispatcher.shutdown()
