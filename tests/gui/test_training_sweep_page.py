"""The sweep page of the Lazy training tab (pytest-qt, offscreen): the figures draw the mean and
the standard error over seeds of the runs the sweep job measured (recomputed here with NumPy
from the per-run values), partial results are drawn and labelled, nothing stale is drawn or
exported after a change, and the κ_α read-out of the single run."""
from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from ntkviz.core.training.sweep import SWEEP_METRICS  # noqa: E402

#: a small sweep: 3 α, one width, 3 seeds, short runs
SMALL = {"page": "sweep", "sweep_alphas": (0.1, 1.0, 10.0), "sweep_widths": (8,), "samples": 6,
         "steps": 200, "sweep_seeds": 3, "autoplay": False}


@pytest.fixture
def panel(training_panel):
    return training_panel


def finished(qtbot, panel, state, timeout=120000):
    """Set ``state`` and run its sweep to the end; returns the sweep response."""
    panel.model.update(**state)
    panel.sweep.start()
    qtbot.waitUntil(lambda: not panel.sweep.slot.is_busy(), timeout=timeout)
    qtbot.wait(20)
    return panel.sweep.current()


def numpy_stats(response, name, width_index=0):
    """Mean and standard error (sample std with k − 1, over √k) over the seeds, per α."""
    v = response.values[list(SWEEP_METRICS).index(name), width_index]  # (α, seed)
    return v.mean(axis=-1), v.std(axis=-1, ddof=1) / np.sqrt(v.shape[-1])


def test_the_alpha_figure_draws_the_mean_and_standard_error_over_seeds(qtbot, panel):
    result = finished(qtbot, panel, {**SMALL, "sweep_plot": "alpha",
                                     "sweep_metric": "displacement"})
    sweep = result.responses[0]
    assert result.done and sweep.runs().tolist() == [[3, 3, 3]]
    fig = panel.sweep.figures["alpha"]
    for plot, name in [("losses", "test_loss_net"), ("losses", "test_loss_linear"),
                       ("losses", "test_loss_kernel"), ("metric", "displacement")]:
        curve, bars = fig.items[(plot, 0, name)]
        mean, sem = numpy_stats(sweep, name)
        np.testing.assert_allclose(curve.xData, [0.1, 1.0, 10.0], rtol=1e-15)
        np.testing.assert_allclose(curve.yData, mean, rtol=1e-12)
        if name == "test_loss_kernel":  # the kernel flow does not depend on the seed's net
            continue
        assert bars is not None, name  # ± s.e. on a log axis: log10(mean ± sem) − log10(mean)
        ok = sem > 0
        np.testing.assert_allclose(bars.opts["top"], np.log10(mean[ok] + sem[ok]) - np.log10(mean[ok]),
                                   rtol=1e-9)
    assert "mean ± s.e. over 3 seeds" in fig.title.text and "running" not in fig.title.text
    header, rows = panel.csv_table("sweep_alpha")
    assert [float(r[0]) for r in rows] == [0.1, 1.0, 10.0]
    col = header.index("displacement")
    np.testing.assert_allclose([r[col] for r in rows], numpy_stats(sweep, "displacement")[0],
                               rtol=1e-12)


def test_tau_axis_moves_the_curves_to_the_square_root(qtbot, panel):
    result = finished(qtbot, panel, {**SMALL, "sweep_plot": "alpha", "sweep_seeds": 1})
    fig = panel.sweep.figures["alpha"]
    panel.model.update(sweep_x="tau")
    curve, bars = fig.items[("losses", 0, "test_loss_net")]
    np.testing.assert_allclose(curve.xData, np.sqrt([0.1, 1.0, 10.0]), rtol=1e-15)
    assert bars is None and "1 seed (no error bars)" in fig.title.text
    assert panel.sweep.current() is result  # a display field: the same sweep, not rerun


def test_partial_results_are_drawn_and_labelled_and_cancel_keeps_them(qtbot, panel):
    panel.model.update(**{**SMALL, "sweep_alphas": (0.1, 0.3, 1.0, 3.0, 10.0, 30.0), "steps": 20000,
                           "sweep_seeds": 4})
    total = 24
    panel.sweep.start()
    qtbot.waitUntil(lambda: panel.sweep.response is not None
                    and panel.sweep.response.finished_runs >= 1, timeout=120000)
    fig = panel.sweep.figures["alpha"]
    assert f" of {total} runs" in fig.title.text and "running: " in fig.title.text
    panel.sweep.cancel()
    qtbot.waitUntil(lambda: not panel.sweep.slot.is_busy(), timeout=60000)
    finished_runs = panel.sweep.response.finished_runs
    assert 1 <= finished_runs < total
    assert f"partial: cancelled after {finished_runs} of {total} runs" in fig.title.text
    assert "the partial result" in panel.sweep.job.info.text()
    header, rows = panel.csv_table("sweep_alpha")  # the partial rows, as drawn
    assert rows and int(rows[0][header.index("runs")]) >= 1


def test_a_changed_sweep_field_leaves_nothing_stale(qtbot, panel):
    finished(qtbot, panel, {**SMALL, "sweep_plot": "alpha"})
    fig = panel.sweep.figures["alpha"]
    assert fig.items
    qtbot.waitUntil(lambda: not panel.slot.is_busy(), timeout=60000)
    latest = panel.slot.latest_id()
    panel.model.update(sweep_seeds=2)
    assert fig.items == {} and fig.drawn == ("nothing", "parameters changed: press Run sweep")
    with pytest.raises(ValueError, match="nothing to export"):
        panel.csv_table("sweep_alpha")
    with pytest.raises(ValueError, match="nothing to export"):
        with panel.exporting("sweep_alpha"):
            pass
    qtbot.wait(50)
    assert panel.slot.latest_id() == latest  # the single run is not recomputed by a sweep field
    panel.model.update(sweep_seeds=3)  # back to the sweep computed: drawn again
    assert fig.items


def test_the_double_descent_figure_puts_m_over_n_on_x_and_the_kernel_as_its_level(qtbot, panel):
    result = finished(qtbot, panel, {**SMALL, "sweep_plot": "double_descent", "sweep_alphas": (1.0,),
                                     "sweep_widths": (2, 6, 24), "sweep_train": "last",
                                     "sweep_ridge": 1e-8, "sweep_noise": 0.1, "sweep_seeds": 2})
    sweep = result.responses[0]
    fig = panel.sweep.figures["double_descent"]
    curve, bars = fig.items[("loss", 0, "test_loss_net")]
    np.testing.assert_allclose(curve.xData, np.array([2, 6, 24]) / 6, rtol=1e-15)
    v = sweep.values[list(SWEEP_METRICS).index("test_loss_net"), :, 0]  # (width, seed)
    np.testing.assert_allclose(curve.yData, v.mean(axis=-1), rtol=1e-12)
    import pyqtgraph as pg

    lines = [i for i in fig.plots["loss"].items if isinstance(i, pg.InfiniteLine)]
    kernel = sweep.values[list(SWEEP_METRICS).index("test_loss_kernel")][0, 0].mean()  # over seeds
    assert any(line.angle == 90 and line.value() == 0.0 for line in lines)  # m = n
    assert any(line.angle == 0 and line.value() == pytest.approx(np.log10(kernel), rel=1e-12)
               for line in lines)


def test_the_single_run_reads_out_kappa_alpha(qtbot, panel):
    from ntkviz.core.training.laziness import laziness

    with qtbot.waitSignal(panel.computed, timeout=60000):
        panel.set_state({"steps": 200, "frames": 10, "autoplay": False, "alpha": 2.0,
                         "compare": True, "alpha2": 200.0})
    panel.show_frame(0)
    for label, run in zip(panel.readouts, panel._data.runs):
        kappa = laziness(run.setup).kappa(run.setup.config.alpha)  # from the run's setup
        assert f"κ<sub>α</sub> = {kappa:.3g}" in label.text()


def test_fast_runs_are_drawn_at_most_twice_a_second_and_the_end_at_once(qtbot, panel):
    from ntkviz.gui.panels.training._sweep import PARTIAL_DRAW_S

    panel.model.update(**{**SMALL, "sweep_alphas": (0.1, 0.3, 1.0, 3.0, 10.0, 30.0), "steps": 20,
                           "sweep_seeds": 5})
    drawings = []
    panel.sweep.drawn.connect(lambda: drawings.append(panel.sweep.figures["alpha"].drawn))
    start = time.perf_counter()
    panel.sweep.start()
    qtbot.waitUntil(lambda: not panel.sweep.slot.is_busy(), timeout=120000)
    elapsed = time.perf_counter() - start
    partial = [d for d in drawings if d[0] != "nothing" and not d[-1].done]
    assert len(partial) <= elapsed / PARTIAL_DRAW_S + 1  # not one per run (30 runs)
    final = drawings[-1]
    assert final[-1].done and final[-1].finished == 30 and panel.sweep.current().done
