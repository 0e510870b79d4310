"""Classification view (offscreen): the drawn points and error bars equal the job's rows,
the confusion page counts the predictions, the spectrum & theory page runs on its own job
slot, sessions, refused input, export of every view."""
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
                      "unseen_test_labels", "n_test", "accuracy_ci_low", "accuracy_ci_high"]
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
        for view in panel.plot_items():  # the accuracy page's
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


def _bar_ends(bars) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, low, high) of the error bars drawn (six points a bar: the bar, then its two caps)."""
    xs, ys = bars.getData()
    return xs[0::6], ys[0::6], ys[1::6]


def test_error_bars_are_wilson_then_the_spread_over_splits(panel, qtbot):
    """One split: each bar is the 95 % Wilson interval of k = accuracy · n_test right answers
    (the interval computed here by scipy); several splits: mean ± s.e. of the splits' rows."""
    from scipy.stats import binomtest

    panel.set_state({**SMALL, "kernels": ["pixels"], "family": "none", "amplitudes": [0.0], "train_sizes": [10, 40],
                     "test_size": 30})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()
    x, low, high = _bar_ends(panel.bars[("train_size", "pixels")])
    _, ys = panel.curves[("train_size", "pixels")].getData()
    np.testing.assert_array_equal(x, [10, 40])
    for a, lo, hi in zip(ys, low, high):
        ci = binomtest(round(a * 30), 30).proportion_ci(0.95, method="wilson")
        assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-9)
    assert "n<sub>test</sub> = 30" in panel.accuracy.notes["train_size"].html()
    assert "Wilson" in panel.accuracy.notes["train_size"].plain_text()

    panel.splits_spin.setValue(3)
    assert not panel.curves[("train_size", "pixels")].isVisible()  # the one-split bars are gone
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()
    header, rows = panel.csv_table("train_size")
    split = header.index("split")
    x, low, high = _bar_ends(panel.bars[("train_size", "pixels")])
    _, ys = panel.curves[("train_size", "pixels")].getData()
    for j, n in enumerate((10, 40)):
        acc = np.array([r[4] for r in rows if r[1] == n and r[split] != "mean"])
        assert len(acc) == 3
        sem = acc.std(ddof=1) / np.sqrt(3)
        assert ys[j] == pytest.approx(acc.mean(), rel=1e-12)
        assert (low[j], high[j]) == pytest.approx((acc.mean() - sem, acc.mean() + sem), rel=1e-12)
    assert "3 random splits" in panel.accuracy.notes["train_size"].plain_text()


def test_confusion_page_counts_the_predictions(panel, qtbot, tmp_path):
    """The matrix drawn is the CSV of the confusion view (rows: true digit), it sums to n_test
    and its trace is the accuracy of the largest training size; another kernel redraws it
    without a new run."""
    from ntkviz.gui.export import export_view

    panel.set_state({**SMALL, "kernels": ["pixels", "scattering"], "family": "none", "amplitudes": [0.0],
                     "page": "confusion"})
    assert panel.pages.currentIndex() == 1
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()
    _, acc_rows = panel.csv_table("train_size")
    for kernel, index in (("pixels", 0), ("scattering", 1)):
        panel.confusion_combo.setCurrentIndex(index)
        assert panel.model.params.shown_confusion_kernel == kernel
        header, rows = panel.csv_table("confusion")
        assert header[-3:] == ["true_label", "predicted_label", "count"] and {r[0] for r in rows} == {kernel}
        classes = list(panel.confusion.classes)
        want = np.zeros((len(classes), len(classes)), dtype=int)
        for r in rows:
            want[classes.index(r[5]), classes.index(r[6])] = r[7]
        np.testing.assert_array_equal(panel.confusion.matrix, want)
        assert want.sum() == 10
        (accuracy,) = [r[4] for r in acc_rows if r[0] == kernel and r[1] == 20]
        assert np.trace(want) == round(accuracy * 10)
        assert kernel in panel.confusion.plot.titleLabel.text.lower()
    export_view(panel, "confusion", tmp_path / "confusion.png")
    assert (tmp_path / "confusion.png").stat().st_size > 0


def test_theory_page_runs_on_its_own_slot(panel, qtbot, tmp_path):
    """Start on the spectrum & theory page runs that job (not the classification), draws the
    request's response, and a change of a theory field empties only the theory plots."""
    from ntkviz.gui.export import export_view
    from ntkviz.jobs import ClassifyTheoryRequest

    theory = {"pool_size": 30, "theory_sizes": [5, 10, 20], "draws": 2, "theory_seed": 1}
    panel.set_state({**SMALL, "kernels": ["pixels"], "family": "none", "amplitudes": [0.0], **theory})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()  # the accuracy page: the classification
    assert panel.response is not None and panel.theory_response is None
    assert panel.theory_slot is not panel.slot
    panel.pages.setCurrentIndex(2)
    assert panel.model.params.page == "theory"
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()
    want = ClassifyTheoryRequest(kernels=("pixels",), architecture="M3", test_size=10, seed=0, pool_size=30,
                                 theory_sizes=(5, 10, 20), draws=2, theory_seed=1)()
    got = panel.theory_response.theories["pixels"]
    np.testing.assert_allclose(got.certificate["true"], want.theories["pixels"].certificate["true"], rtol=1e-12)
    header, rows = panel.csv_table("certificate")
    assert [r[1] for r in rows if r[2] == "true"] == [5, 10, 20]
    for view in ("spectrum", "alignment", "learning_curve", "certificate"):
        for suffix in (".png", ".svg", ".csv"):
            export_view(panel, view, tmp_path / f"{view}{suffix}")
            assert (tmp_path / f"{view}{suffix}").stat().st_size > 0
    panel.draws_spin.setValue(3)  # a theory field: its plots empty, the accuracy stays
    assert panel.theory_current() is None and panel.response is not None
    assert panel.curves[("train_size", "pixels")].isVisible()
    with pytest.raises(ValueError, match="nothing to export"):
        export_view(panel, "certificate", tmp_path / "stale.png")
    assert list(panel.plot_items()) == ["spectrum", "alignment", "learning_curve", "certificate"]
    panel.pages.setCurrentIndex(0)
    assert list(panel.plot_items()) == ["train_size", "deformation"]
    export_view(panel, "train_size", tmp_path / "accuracy.png")
