"""Classification view (offscreen): the drawn points equal the job's rows, sessions,
refused input, export of both views."""
from __future__ import annotations

import numpy as np
import pytest

TIMEOUT = 120000
SMALL = {"kernels": ["pixels", "ckn"], "architecture": "M3", "train_sizes": [10, 20], "test_size": 10,
         "family": "rotation", "amplitudes": [0.0, 30.0], "use_cache": False}


@pytest.fixture
def panel(qtbot, dispatcher):
    from ntkviz.gui.panels.classification import QtClassificationPanel

    p = QtClassificationPanel(dispatcher)
    qtbot.addWidget(p)
    p.resize(900, 600)
    p.show()
    return p


def test_start_draws_the_requests_rows(panel, qtbot, tmp_path):
    from ntkviz.jobs import ClassifyRequest

    panel.set_state(SMALL)
    assert panel.response is None  # auto_compute is off: nothing runs until Start
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()
    assert panel.progress.value() == 1000
    want = ClassifyRequest(architecture="M3", kernels=("pixels", "ckn"), train_sizes=(10, 20), test_size=10,
                           family="rotation", amplitudes=(0.0, 30.0))()
    header, rows = panel.csv_table("deformation")
    assert header == ["kernel", "train_size", "deformation", "amplitude", "accuracy", "train_classes",
                      "unseen_test_labels"]
    assert rows == want.csv_table("deformation")[1]
    for view, col in (("train_size", 1), ("deformation", 3)):
        _, rows = panel.csv_table(view)
        xs, ys = panel.curves[(view, "ckn")].getData()
        pts = sorted((float(r[col]), r[4]) for r in rows if r[0] == "ckn")
        np.testing.assert_array_equal(xs, [p[0] for p in pts])
        np.testing.assert_array_equal(ys, [p[1] for p in pts])
    assert panel.curves[("train_size", "ntk")].getData()[0] is None or \
        len(panel.curves[("train_size", "ntk")].getData()[0]) == 0
    from ntkviz.gui.export import export_view

    for suffix in (".png", ".svg", ".csv"):
        for view in panel.plot_items():
            export_view(panel, view, tmp_path / f"{view}{suffix}")
            assert (tmp_path / f"{view}{suffix}").stat().st_size > 0


def test_sessions_and_refused_values(panel):
    panel.set_state(SMALL)
    state = panel.state()
    assert state["train_sizes"] == [10, 20] and state["kernels"] == ["pixels", "ckn"]
    with pytest.raises(ValueError, match="train_sizes"):
        panel.set_state({"train_sizes": [1000]})
    assert panel.state() == state  # nothing changed
    panel.sizes_edit.setText("10, x")
    panel.sizes_edit.editingFinished.emit()
    assert "train_sizes" in panel.last_error and panel.sizes_edit.text() == "10, 20"
    panel.ridge_edit.setText("0.01")
    panel.ridge_edit.editingFinished.emit()
    assert panel.model.params.ridge == 0.01
    panel.family_combo.setCurrentText("translation")
    assert panel.model.params.amplitudes == (0.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="M4"):
        panel.set_state({"architecture": "M4", "kernels": ["ntk"]})


def test_another_seed_never_shows_the_previous_curves(panel, qtbot, tmp_path):
    """A new seed empties the plots at once, with a note; while the run for it computes,
    the previous seed's curves stay hidden, and nothing of them is exported."""
    from ntkviz.gui.export import export_view

    panel.set_state({**SMALL, "kernels": ["pixels"]})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()
    curve = panel.curves[("train_size", "pixels")]
    assert curve.isVisible() and len(curve.getData()[0]) == 2
    panel.seed_spin.setValue(7)
    assert not curve.isVisible() and not panel.plots["train_size"].legend.isVisible()
    assert any(n.isVisible() and "parameters changed" in n.text() for n in panel._notes)
    assert "parameters changed" in panel.info.text()
    with pytest.raises(ValueError, match="nothing to export"):
        export_view(panel, "train_size", tmp_path / "stale.png")
    seen = []  # the curve as each partial result of the new run arrives
    panel.slot.yielded.connect(lambda *_: seen.append((curve.isVisible(),
                                                       getattr(panel.drawn, "seed", None))))
    panel.start()
    assert not curve.isVisible()  # running: the seed-0 curves are not back
    assert any(n.isVisible() and "running" in n.text() for n in panel._notes)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        pass
    assert all(seed == 7 for visible, seed in seen if visible)
    assert curve.isVisible() and panel.drawn.seed == 7
    export_view(panel, "train_size", tmp_path / "fresh.png")
