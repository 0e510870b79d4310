"""Lazy-training panel (pytest-qt, offscreen): playback, scrubbing, restarts, divergence,
export and sessions. Frames are compared with the job's own frames (same request)."""
from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from ntkviz.gui.panels.training import QtTrainingPanel  # noqa: E402
from ntkviz.gui.workers import Dispatcher  # noqa: E402

SMALL = {"steps": 400, "frames": 40, "autoplay": False, "alpha": 0.01, "compare": True,
         "alpha2": 100.0}


@pytest.fixture
def panel(qtbot):
    dispatcher = Dispatcher()
    p = QtTrainingPanel(dispatcher)
    qtbot.addWidget(p)
    p.resize(1200, 700)
    p.show()
    yield p
    p.pause()
    dispatcher.shutdown()


def computed(qtbot, panel, state, timeout=60000):
    with qtbot.waitSignal(panel.computed, timeout=timeout):
        panel.set_state(state)
    return panel._data


def drawn_net(panel, run=0):
    return np.asarray(panel.views[run].curves["net"].yData)


def test_play_advances_frames(qtbot, panel):
    data = computed(qtbot, panel, SMALL)
    assert data.done and data.frame_count > 10
    panel.show_frame(0)
    panel.play()
    qtbot.waitUntil(lambda: panel.current_index() >= 5, timeout=5000)
    i = panel.current_index()
    np.testing.assert_array_equal(drawn_net(panel), data.frame(0, i).net)
    qtbot.waitUntil(lambda: not panel.is_playing(), timeout=10000)  # stops at the end
    assert panel.current_index() == data.frame_count - 1


def test_scrubbing_shows_the_recorded_frame(qtbot, panel):
    data = computed(qtbot, panel, SMALL)
    panel.player.timeline.setValue(7)
    assert panel.current_index() == 7
    for run in (0, 1):
        frame = data.frame(run, 7)
        np.testing.assert_array_equal(drawn_net(panel, run), frame.net)
        view = panel.views[run]
        pos = frame.signs > 0
        np.testing.assert_array_equal(view.dots[1].xData, frame.neurons[pos, 0])
        np.testing.assert_array_equal(view.dots[-1].yData, frame.neurons[~pos, 1])
    assert panel.player.label.text().startswith(f"frame 8/{data.frame_count}")
    assert panel.model.params.frame == 7  # the scrub position is the model's (sessions)
    panel.player.step(+1)
    assert panel.current_index() == 8 and not panel.is_playing()
    assert panel.model.params.frame == 8


def test_changing_alpha_while_playing_restarts_without_stale_frames(qtbot, panel):
    computed(qtbot, panel, {**SMALL, "autoplay": True, "steps": 3000, "frames": 80})
    panel.show_frame(0)
    panel.play()
    qtbot.waitUntil(lambda: panel.current_index() >= 3, timeout=5000)
    seen = []

    def check(index):
        data = panel._data
        seen.append((data.request.config.alpha, np.array_equal(drawn_net(panel), data.frame(0, index).net)))

    panel.frame_shown.connect(check)
    with qtbot.waitSignal(panel.computed, timeout=60000):
        panel.controls.alpha.setValue(3.0)
        assert panel.frame_count() == 0  # old frames dropped at once
        assert all(c.yData is None or len(c.yData) == 0 for c in panel.views[0].curves.values())
    qtbot.waitUntil(lambda: len(seen) > 0, timeout=5000)
    assert all(alpha == 3.0 and same for alpha, same in seen)
    assert panel._data.request.config.alpha == 3.0 and panel._data.done


def test_unstable_step_size_stops_with_a_message_instead_of_nan(qtbot, panel):
    messages = []
    panel.status.connect(messages.append)
    data = computed(qtbot, panel, {**SMALL, "lr": 0.1, "compare": False})
    assert data.diverged
    message = panel.controls.message.text()
    assert "diverged" in message and "step size" in message
    assert any("diverged" in m for m in messages)
    for index in range(data.frame_count):
        panel.show_frame(index)
        assert np.isfinite(drawn_net(panel)).all()
        assert np.isfinite(panel.views[0].dots[1].xData).all()


def test_export_files(qtbot, panel, tmp_path):
    from ntkviz.gui.export import export_plot, svg_string, write_csv_table

    computed(qtbot, panel, SMALL)
    png = export_plot(panel.plot_items()["figure"], tmp_path / "f.png", width=800)
    assert png.stat().st_size > 10000
    assert "<svg" in svg_string(panel.plot_items()["neurons"])
    header, rows = panel.csv_table("metrics")
    write_csv_table(tmp_path / "m.csv", header, rows)
    assert len(rows) == sum(len(r.frames) for r in panel._data.runs)
    panel.model.update(frame=5)
    header, rows = panel.csv_table("predictor")
    assert {row[1] for row in rows} == {panel._data.frame(0, 5).step}


def test_session_state_round_trip(qtbot, panel):
    state = {**SMALL, "alpha": 0.05, "width": 16, "samples": 9, "seed": 3, "lr": 0.002,
             "init": "centered", "metrics": ["train_loss", "kernel_drift"]}
    data = computed(qtbot, panel, state)
    panel.player.timeline.setValue(4)
    saved = json.loads(json.dumps(panel.state()))
    assert saved["frame"] == 4
    other = QtTrainingPanel(panel.dispatcher)
    qtbot.addWidget(other)
    with qtbot.waitSignal(other.computed, timeout=60000):
        other.set_state(saved)
    assert other.state() == saved
    assert other.current_index() == 4
    np.testing.assert_array_equal(other._data.frame(0, 4).net, data.frame(0, 4).net)
    np.testing.assert_array_equal(drawn_net(other), data.frame(0, 4).net)


def test_odd_width_is_made_even(qtbot, panel):
    computed(qtbot, panel, SMALL)
    panel.controls.width_m.setValue(21)
    assert panel.controls.width_m.value() == 22 == panel.model.params.width


def test_playback_drops_frames_rather_than_falling_behind(qtbot, panel):
    computed(qtbot, panel, SMALL)
    panel.show_frame(0)
    player = panel.player
    player.restart_clock(0)  # the clock of a playing timeline, ticks driven by hand
    player.ready = False  # the last frame is still being painted
    dropped = player.frames_dropped
    player.tick()
    assert player.frames_dropped == dropped + 1 and panel.current_index() == 0
    qtbot.wait(500)  # 15 frames' worth of wall-clock time at 30 frames/s
    player.ready = True
    player.tick()
    assert panel.current_index() >= 12  # jumps to the wall-clock frame, skipping the others
