"""``ntkviz gui --screenshot`` on tabs that compute only on demand, and what the main window
starts by itself: a screenshot starts the tab's job (the Start button's request, the
session's parameters) and saves the drawn plot; a failed or stalled job saves nothing and
exits 1; opening such a tab in the running app starts nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

#: two digits x two amplitudes: a sweep of seconds
SMALL_SWEEP = {"digits": [0, 100], "amplitude_count": 2, "amplitude_min": 0.1, "amplitude_max": 1.0,
               "reference_per_class": 2}

#: the app with the stability job replaced by one that raises (the screenshot must fail)
FAILING_JOB = """
import sys
from ntkviz.models import stability

class Failing:
    heavy = iterated = True

    def iterate(self):
        raise RuntimeError("the sweep broke on purpose")
        yield

stability.StabilityModel.build_request = classmethod(lambda cls, params: Failing())
from ntkviz.gui.app import main
sys.exit(main(screenshot=sys.argv[1], tab="stability"))
"""


def _session(tmp_path, current: str, panels: dict) -> str:
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"app": "ntkviz", "version": "0.1.0", "session_format": 1,
                                "current": current, "panels": panels}))
    return str(path)


def _run(args, tmp_path, timeout=300):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONFAULTHANDLER="1",
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)


@pytest.fixture
def out(tmp_path):
    """An empty folder for the screenshot (and nothing else)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def _colour_pixels(path, colours) -> list[int]:
    """How many pixels of the PNG at ``path`` have exactly each ``#rrggbb`` colour."""
    image = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), dtype=np.uint32).reshape(image.height(), -1)
    rgb = rows[:, :image.width()] & 0xFFFFFF
    return [int(np.count_nonzero(rgb == int(c.lstrip("#"), 16))) for c in colours]


def test_screenshot_runs_the_stability_sweep_and_saves_the_drawn_plot(tmp_path, out):
    from ntkviz.gui.plot_style import PALETTE

    shot = out / "stability.png"
    session = _session(tmp_path, "stability", {"stability": SMALL_SWEEP})
    proc = _run(["-m", "ntkviz", "gui", "--session", session, "--tab", "stability",
                 "--screenshot", str(shot)], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "stability job: 100%|" in proc.stderr  # progress of the sweep (tqdm), then done
    assert "error" not in proc.stderr
    # CKN, NTK and pixel curves with their bands: an empty plot has only the legend's
    # short samples of these colours (under 50 pixels each at this size)
    counts = _colour_pixels(shot, PALETTE[:3])
    assert min(counts) > 300, counts


def test_screenshot_of_a_failing_job_saves_nothing_and_exits_1(tmp_path, out):
    shot = out / "stability.png"
    proc = _run(["-c", FAILING_JOB, str(shot)], tmp_path)
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "the sweep broke on purpose" in last and "no screenshot saved" in last, proc.stderr
    assert list(out.iterdir()) == []  # no screenshot, no temporary file left either


def test_unknown_tab_is_refused_before_a_window_opens(tmp_path, out):
    proc = _run(["-m", "ntkviz", "gui", "--tab", "stabilty", "--screenshot", str(out / "x.png")],
                tmp_path, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("ntkviz gui: error: --tab must be one of kernel, spectrum, "
                                   "deformation, stability, training, classification, learning, scattering; "
                                   "got 'stabilty'")
    assert list(out.iterdir()) == []


def test_stalled_job_saves_nothing(qapp, dispatcher, tmp_path, monkeypatch):
    """No result and no progress for ``stall_s``: exit code 1 and no file (not the empty plot)."""
    from ntkviz.gui.app import _screenshot_when_ready
    from ntkviz.gui.panels.stability import QtStabilityPanel

    class Silent:
        heavy = iterated = True

        def iterate(self):
            time.sleep(1.5)  # longer than the stall limit below, then nothing
            return
            yield

    monkeypatch.setattr(QtStabilityPanel, "build_request", lambda self: Silent())
    panel = QtStabilityPanel(dispatcher)
    panel.resize(640, 400)
    panel.show()
    shot = tmp_path / "shot.png"
    outcome = _screenshot_when_ready(qapp, panel, panel, str(shot), stall_s=0.5)
    assert panel.start() > 0
    limit = QtCore.QTimer()  # the test's own limit
    limit.setSingleShot(True)
    limit.timeout.connect(lambda: qapp.exit(99))
    limit.start(20000)
    try:
        assert qapp.exec() == 1
    finally:
        limit.stop()
    assert outcome["error"] == "Stability: nothing drawn after 0.5 s without progress"
    assert not shot.exists()


@pytest.mark.parametrize("key", ["stability", "classification"])
def test_opening_an_on_demand_tab_starts_no_job(qtbot, dispatcher, key):
    """The app's start-up and a tab opened later start only panels that compute by
    themselves: a sweep or a classification waits for its Start button."""
    from ntkviz.gui.main_window import MainWindow

    window = MainWindow(dispatcher, panels=["kernel", key])
    qtbot.addWidget(window)
    window.show_panel(key)  # the on-demand tab is the one shown at start
    started = []
    dispatcher.busy.connect(lambda k, busy: busy and started.append(k))
    window.start()
    qtbot.waitUntil(lambda: window.startup.started, timeout=60000)
    window.show_panel("kernel")  # computes by itself
    qtbot.waitUntil(lambda: window.panels["kernel"].response is not None, timeout=60000)
    window.show_panel(key)
    qtbot.wait(300)
    assert key not in started
    assert window.panels[key].response is None
