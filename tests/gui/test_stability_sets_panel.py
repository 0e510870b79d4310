"""The Stability tab's sets figure (the paper's Fig. 1) and the fitted bound forms (offscreen,
pytest-qt): the plots draw exactly a result computed independently by the request, each
figure keeps its own result, Cancel and parameter changes never leave a stale figure,
sessions keep every field, and the dashed fits are the fits of the points plotted."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.deformations.fits import fit_ckn_bound, fit_ntk_bound, pooling_scale

TIMEOUT = 120000
#: a small sets figure: two sets, three digits each, two last-pooling values
SMALL_SETS = {"figure": "sets", "sets": ["deform:3", "same"], "set_size": 3, "sweep": "last-pooling",
              "sweep_values": [2, 5]}
#: a small amplitude sweep
SMALL_SWEEP = {"family": "smooth", "digits": [0, 100], "amplitude_min": 0.05, "amplitude_max": 1.0,
               "amplitude_count": 3, "seeds": 1, "first_seed": 3, "architecture": "M1",
               "reference_per_class": 2}


@pytest.fixture
def panel(stability_panel):
    return stability_panel


def run(qtbot, panel, figure: str) -> None:
    """Press ``figure``'s own Run button and wait for its result."""
    controls = panel.sets_controls if figure == "sets" else panel.amplitude_controls
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        controls.run_button.click()


def request_of(state: dict):
    """The sets result computed straight from the request (not through the panel)."""
    from ntkviz.jobs import StabilitySetsRequest

    values = tuple(v if state.get("sweep") == "amplitude" else int(v) for v in state["sweep_values"])
    return StabilitySetsRequest(sets=tuple(state["sets"]), set_size=state["set_size"],
                                sweep=state["sweep"], values=values,
                                architecture=PRESETS[state.get("architecture", "M1")])()


def bar_ends(item) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` ends of the error bars drawn as segment pairs (bar, top cap,
    bottom cap per point)."""
    if item.yData is None or not len(item.yData):
        return np.zeros(0), np.zeros(0)
    ys = np.asarray(item.yData).reshape(-1, 6)
    return ys[:, 0], ys[:, 1]


def n_points(item) -> int:
    return 0 if item.xData is None else len(item.xData)


def shows_sets(panel) -> bool:
    """Anything of a sets result on the figure: a curve, bar or fit with data, a legend
    entry, an example image."""
    w = panel.sets_widget
    items = [*w.curves.values(), *w.bars.values(), *w.fits.values()]
    drawn = [i for i in items if i.isVisible() and n_points(i)]
    images = [im for im in (*w.row_images, w.reference_image) if im.image is not None]
    return bool(drawn or images or (w.legend.isVisible() and w.legend.items))


def test_the_plots_draw_the_requests_means_and_standard_errors(qtbot, panel):
    panel.set_state(SMALL_SETS)
    assert panel.figures.currentWidget() is panel.sets_widget
    assert panel.dispatcher.latest_id(panel.key) == 0  # nothing started by itself
    run(qtbot, panel, "sets")
    want = request_of(SMALL_SETS)
    w = panel.sets_widget
    for name in ("ckn", "ntk"):
        for s in range(len(want.sets)):
            curve = w.curves[(name, s)]
            np.testing.assert_array_equal(curve.xData, want.values)
            np.testing.assert_array_equal(curve.yData, want.mean[name][s])
            lower, upper = bar_ends(w.bars[(name, s)])
            np.testing.assert_array_equal(lower, want.mean[name][s] - want.sem[name][s])
            np.testing.assert_array_equal(upper, want.mean[name][s] + want.sem[name][s])
    # the shared y axis starts at 0 and holds every bar
    for plot in w.plots.values():
        lo, hi = plot.getViewBox().viewRange()[1]
        assert lo == 0.0 and hi >= max(np.max(want.mean[m] + want.sem[m]) for m in ("ckn", "ntk"))
    labels = [label.text for _, label in w.legend.items]
    assert labels == ["deformations, α = 3 (n = 3)", "digits of the same label (5) (n = 3)"]
    assert w.plots["ckn"].getAxis("bottom").labelText == want.axis_label
    assert "translation term ‖τ‖∞/σₙ" in w.note.text and "own smooth fields" in w.note.text
    # the strip: each set's examples side by side, the reference beside them
    first = w.row_images[0].image
    assert first.shape == (28, 28 * 3 + 2 * 2)
    np.testing.assert_array_equal(first[:, :28], want.examples[0][0])
    np.testing.assert_array_equal(w.reference_image.image, want.reference)
    assert "bundled digit" in w.reference_label.text
    header, rows = panel.csv_table("sets")
    assert (header, rows) == tuple(map(list, want.csv_table()))
    assert panel.sets_controls.progress.value() == 1000


def test_each_figure_keeps_its_own_result(qtbot, panel):
    """A change of one figure's parameters leaves the other's result drawn; switching the
    figure shown recomputes nothing."""
    panel.set_state({**SMALL_SWEEP, **SMALL_SETS})
    returned = []
    panel.slot_of("sets").returned.connect(lambda *args: returned.append(args))
    run(qtbot, panel, "sets")
    panel.write(figure="amplitude")
    assert panel.figures.currentWidget() is panel.plot_widget
    run(qtbot, panel, "amplitude")
    panel.write(set_size=2)  # a sets parameter: the amplitude figure stays
    assert panel.is_current() and panel.plot_items().keys() == {"stability"}
    panel.write(digits=(0, 200))  # an amplitude parameter: the amplitude figure clears
    assert not panel.is_current() and panel.response is None
    assert panel.slot_of("amplitude") is panel.slot  # the figure shown's job
    panel.write(figure="sets", set_size=3)  # the sets result of these parameters is kept: drawn at once
    assert panel.slot_of("sets") is panel.slot
    assert panel.is_current() and shows_sets(panel) and "kept" in panel.sets_controls.info.text()
    qtbot.wait(100)
    assert len(returned) == 1 and not panel.dispatcher.is_busy("stability.sets")


def test_no_stale_sets_after_a_change_or_a_cancel(qtbot, panel, tmp_path):
    from ntkviz.gui.export import export_view

    panel.set_state(SMALL_SETS)
    run(qtbot, panel, "sets")
    assert shows_sets(panel)
    export_view(panel, "sets", tmp_path / "fresh.png", 640, 400)

    def assert_nothing_stale(what: str):
        assert not shows_sets(panel), what
        assert any(n.isVisible() and "Compute sets" in n.text() for n in panel._notes), what
        for suffix in (".png", ".svg", ".csv"):
            with pytest.raises(ValueError, match="nothing to export"):
                export_view(panel, "sets", tmp_path / f"stale{suffix}", 640)
        assert not list(tmp_path.glob("stale*")), what

    panel.sets_edit.setText("deform+translate:1, any")
    panel.sets_edit.editingFinished.emit()
    assert panel.model.params.sets == ("deform+translate:1", "any")
    assert_nothing_stale("new sets")
    run(qtbot, panel, "sets")
    panel.sweep_combo.setCurrentText("patch")  # and the sweep's default values with it
    assert panel.model.params.sweep_values == (1.0, 3.0, 5.0)
    assert_nothing_stale("new sweep")
    panel.sets_controls.run_button.click()
    panel.sets_controls.cancel_button.click()  # at 0 %
    qtbot.waitUntil(lambda: not panel.dispatcher.is_busy("stability.sets"), timeout=TIMEOUT)
    qtbot.wait(50)
    assert_nothing_stale("cancel at 0 %")
    assert "cancelled at 0 % before any result" in panel.sets_controls.info.text()


def test_a_cancelled_run_keeps_its_partial_result_of_these_parameters(qtbot, panel):
    panel.set_state({**SMALL_SETS, "sets": ["deform:3", "same", "any"], "sweep_values": [1, 2, 3, 5]})
    with qtbot.waitSignal(panel.dispatcher.yielded, timeout=TIMEOUT):
        panel.sets_controls.run_button.click()
    panel.sets_controls.cancel_button.click()
    qtbot.waitUntil(lambda: not panel.dispatcher.is_busy("stability.sets"), timeout=TIMEOUT)
    qtbot.wait(50)
    assert panel.is_current() and panel.partial
    drawn = panel.response
    assert 0 < int(np.count_nonzero(drawn.count)) < drawn.count.size
    w = panel.sets_widget
    for s in range(3):  # only the cells computed: never a NaN drawn as a point
        done = drawn.count[s] > 0
        np.testing.assert_array_equal(w.curves[("ckn", s)].yData, drawn.mean["ckn"][s][done])
    assert "partial result stays" in panel.sets_controls.info.text()


def test_session_round_trip(qtbot, panel, dispatcher):
    from ntkviz.gui.panels.stability import QtStabilityPanel

    state = {**SMALL_SETS, "reference_label": 3, "reference_index": 2, "fits": True,
             "sets": ["deform:2", "deform+translate:0.5", "any"], "sweep": "amplitude",
             "sweep_values": [0.5, 2.0], "infimnist_data": "/no/such/folder", "maps": ["ckn", "scattering"],
             "scattering_j": 3}
    panel.set_state(state)
    saved = json.loads(json.dumps(panel.state()))
    other = QtStabilityPanel(dispatcher)
    qtbot.addWidget(other)
    other.set_state(saved)
    assert other.state() == saved
    for key, value in state.items():
        assert saved[key] == value, key
    assert other.sets_edit.text() == "deform:2, deform+translate:0.5, any"
    assert other.values_edit.text() == "0.5, 2" and other.data_edit.text() == "/no/such/folder"
    assert other.fits_box.isChecked() and other.map_boxes["scattering"].isChecked()
    assert other.figures.currentWidget() is other.sets_widget
    # a data folder that is not there: refused when run, said in the figure, nothing drawn
    other.sets_controls.run_button.click()
    assert "no such folder" in other.last_error and not shows_sets(other)


def test_m4_has_no_ntk_plot_and_one_digit_sets_no_error_bars(qtbot, panel):
    panel.set_state({**SMALL_SETS, "architecture": "M4", "set_size": 1, "sweep_values": [2]})
    run(qtbot, panel, "sets")
    w = panel.sets_widget
    for s in range(2):
        assert not n_points(w.curves[("ntk", s)]) and not n_points(w.bars[("ntk", s)])
        assert n_points(w.curves[("ckn", s)]) == 1
        assert not n_points(w.bars[("ckn", s)])  # one digit: no standard error
    from ntkviz.gui.plot_style import empty_note

    assert "no NTK" in empty_note(w.plots["ntk"]).text() and empty_note(w.plots["ntk"]).shown()
    assert "no standard error" in w.note.text and "has no NTK" in w.note.text
    header, rows = panel.csv_table("sets")
    assert all(row[4] == "" for row in rows if row[0] == "ntk")  # an empty cell, never 0
    assert all(row[5] == "" for row in rows)


def test_amplitude_fits_are_the_fits_of_the_plotted_points(qtbot, panel):
    panel.set_state({**SMALL_SWEEP, "amplitude_count": 4, "fits": True})
    run(qtbot, panel, "amplitude")
    r = panel.response
    sigma = pooling_scale(PRESETS["M1"])
    ckn = fit_ckn_bound(r.jacobian_sup, r.tau_sup / sigma, panel.curves["ckn"].yData, relative=True)
    np.testing.assert_array_equal(panel.curves["ckn"].xData, r.amplitudes)
    np.testing.assert_allclose(panel.plot_widget.fits["ckn"].yData,
                               ckn.predict(r.jacobian_sup, r.tau_sup / sigma), rtol=1e-12)
    ntk = fit_ntk_bound(r.jacobian_sup, panel.curves["ntk"].yData, relative=True)
    np.testing.assert_allclose(panel.plot_widget.fits["ntk"].yData, ntk.predict(r.jacobian_sup), rtol=1e-12)
    note = panel.plot_widget.note.text
    assert "not the theorems' constants" in note and f"C₁ = {ckn.coefficients[0]:.3g}" in note
    assert any("bound fits" in label.text for _, label in panel.legend.items)
    header, rows = panel.csv_table("stability")
    np.testing.assert_allclose([row[header.index("ntk_fit")] for row in rows], ntk.predict(r.jacobian_sup))
    panel.fits_box.setChecked(False)  # display only: the same result, no overlay
    assert panel.is_current() and not n_points(panel.plot_widget.fits["ckn"])
    assert "ckn_fit" not in panel.csv_table("stability")[0]


def test_sets_fits_along_the_amplitude(qtbot, panel):
    state = {**SMALL_SETS, "sets": ["deform:3", "deform+translate:1", "same"], "sweep": "amplitude",
             "sweep_values": [0.3, 1.0, 3.0], "fits": True}
    panel.set_state(state)
    run(qtbot, panel, "sets")
    w = panel.sets_widget
    alpha = np.array([0.3, 1.0, 3.0])
    ntk = fit_ntk_bound(alpha, w.curves[("ntk", 0)].yData, relative=True)
    fit = w.fits[("ntk", 0)]
    np.testing.assert_allclose(fit.yData, ntk.predict(fit.xData), rtol=1e-12)
    assert fit.xData[0] == 0.3 and fit.xData[-1] == pytest.approx(3.0)
    move = np.ones(3) / pooling_scale(PRESETS["M1"])
    ckn = fit_ckn_bound(alpha, move, w.curves[("ckn", 1)].yData, relative=True)
    np.testing.assert_allclose(w.fits[("ckn", 1)].yData,
                               ckn.predict(w.fits[("ckn", 1)].xData, np.full(64, move[0])), rtol=1e-12)
    assert not n_points(w.fits[("ntk", 1)]) and not n_points(w.fits[("ckn", 2)])
    assert "not the theorems' constants" in w.note.text
    assert [label.text for _, label in w.legend.items][0] == "deformations, α on the x axis (n = 3)"
    panel.write(sweep="patch", sweep_values=(1, 3))  # α fixed: fits said not to apply
    run(qtbot, panel, "sets")
    assert not any(n_points(f) for f in w.fits.values())
    assert "only along the deformation amplitude" in w.note.text


def test_the_sets_figure_is_whole_in_the_smallest_window(qtbot, dispatcher, settings):
    """Shown in the smallest window the Stability tab allows, the sets figure's view is at
    least as large as its title, plots, notes and strip need (nothing cut)."""
    import math

    from PySide6 import QtCore, QtWidgets

    from ntkviz.gui.main_window import MainWindow

    w = MainWindow(dispatcher, settings, panels=["stability"])
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    panel = w.panels["stability"]
    panel.write(figure="sets")
    smallest = w.minimumSizeHint()
    assert smallest.width() <= 1280 and smallest.height() <= 720
    w.resize(smallest)
    qtbot.wait(200)
    QtWidgets.QApplication.processEvents()
    view = panel.sets_widget
    assert view.isVisible()
    need = view.centralWidget.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
    have = view.viewport().size()
    assert math.ceil(need.width()) <= have.width() + 1 and math.ceil(need.height()) <= have.height() + 1
