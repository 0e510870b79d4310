"""The lazy-training timeline records the frames asked for and says so.

``frames`` counts the frames recorded after the initialisation: a run of ``steps``
gradient steps has ``min(frames, steps)`` of them (one per step when there are fewer
steps), and the label under the timeline reads ``frame i/N`` with frame 0 the
initialisation. Counts are checked against the steps each frame reports (the job's
own record) and against the closed form, not against the label's own arithmetic.
"""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


@pytest.fixture
def panel(training_panel):
    return training_panel


def run(qtbot, panel, **params):
    state = {"autoplay": False, "compare": False, "alpha": 1.0, "lr": 0.005, **params}
    with qtbot.waitSignal(panel.computed, timeout=120000):
        panel.set_state(state)
    return panel._data


@pytest.mark.parametrize("steps, frames", [(10000, 120), (2000, 300), (30, 30)])
def test_every_frame_asked_for_is_recorded_and_counted(qtbot, panel, steps, frames):
    """The default (10000 steps, 120 log-spaced frames) recorded 100 timeline frames and
    showed 'frame 100/100': log-spaced steps that rounded alike were merged."""
    data = run(qtbot, panel, steps=steps, frames=frames)
    recorded = [f.step for f in data.runs[0].frames]
    assert recorded[0] == 0 and recorded[-1] == steps
    assert len(set(recorded)) == len(recorded) == frames + 1 == data.frame_count
    panel.show_frame(0)
    assert panel.player.label.text().startswith(f"frame 0/{frames}, step 0,")
    panel.show_frame(data.frame_count - 1)
    assert panel.player.label.text().startswith(f"frame {frames}/{frames}, step {steps},")


def test_fewer_steps_than_frames_says_why(qtbot, panel):
    data = run(qtbot, panel, steps=25, frames=120)
    recorded = [f.step for f in data.runs[0].frames]
    assert recorded == list(range(26))  # one frame per step, and the initialisation
    panel.show_frame(25)
    assert panel.player.label.text().startswith("frame 25/25 (only 25 steps), step 25,")
