"""The animation player: play/pause, step and a timeline slider over recorded frames.

A ``QTimer`` ticking :data:`TICKS_PER_FRAME` times per frame period plays the
timeline at ``fps`` frames/s: each tick draws the frame the wall clock has reached
and is dropped while the previous frame is still being painted (``ready`` is
False; the owner sets it when its canvas paints) — napari's ``_play_ready`` pattern.
The player holds no parameters: the frame a user picks is reported by
``picked(index)`` (scrub, step, pause) for the owner to store in its model.
"""
from __future__ import annotations

from typing import Callable

from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

__all__ = ["FramePlayer", "FPS", "TICKS_PER_FRAME"]

#: playback rate (frames of the timeline per second)
FPS = 30
#: timer ticks per frame period: a frame is drawn within half a period of falling due, so a
#: late tick (timer jitter, a busy core) does not skip it
TICKS_PER_FRAME = 2


class FramePlayer(QtWidgets.QWidget):
    """Play/pause, back, forward, the timeline slider and a frame label.

    Parameters
    ----------
    draw : callable(int)
        Draws timeline frame ``index`` (called on ticks, scrubs and steps).
    count : callable() -> int
        Frames available now.
    done : callable() -> bool
        True once no more frames will arrive (playing stops at the last one).
    """

    #: the user picked frame ``index`` (scrubbed, stepped, or paused there; -1: the last
    #: frame of a finished timeline, reached by playing to the end)
    picked = Signal(int)

    def __init__(self, draw: Callable[[int], None], count: Callable[[], int],
                 done: Callable[[], bool], fps: int = FPS, parent=None):
        super().__init__(parent)
        self._draw, self._count, self._done = draw, count, done
        self.fps = fps  #: timeline frames per second while playing
        self.index = 0  #: the frame drawn last
        self.ready = True  #: False while the last frame drawn is not painted yet
        self.frames_dropped = 0  #: ticks skipped because a frame was still being painted
        self.stale = True  #: the frame at ``index`` must be drawn again (new data)
        style = self.style()
        pix = QtWidgets.QStyle.StandardPixmap
        self.play_button = QtWidgets.QToolButton()
        self.play_button.setCheckable(True)
        self.play_button.setIcon(style.standardIcon(pix.SP_MediaPlay))
        self.play_button.setToolTip(f"play / pause the training animation ({fps} frames/s)")
        self.back_button = QtWidgets.QToolButton()
        self.back_button.setIcon(style.standardIcon(pix.SP_MediaSeekBackward))
        self.back_button.setToolTip("previous frame")
        self.step_button = QtWidgets.QToolButton()
        self.step_button.setIcon(style.standardIcon(pix.SP_MediaSeekForward))
        self.step_button.setToolTip("next frame")
        self.timeline = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.timeline.setRange(0, 0)
        self.timeline.setToolTip("scrub the recorded frames")
        self.label = QtWidgets.QLabel("no frames yet")
        self.label.setMinimumWidth(self.label.fontMetrics().horizontalAdvance(
            "frame 1999/1999 (only 1999 steps), step 1999, t = 1.234e+05 …") + 8)
        bar = QtWidgets.QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        for w in (self.play_button, self.back_button, self.step_button):
            bar.addWidget(w)
        bar.addWidget(self.timeline, 1)
        bar.addWidget(self.label)

        self._timer = QtCore.QTimer(self)
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self.tick)
        self._clock = QtCore.QElapsedTimer()
        self._origin = 0
        self.play_button.toggled.connect(self._on_play_toggled)
        self.step_button.clicked.connect(lambda: self.step(+1))
        self.back_button.clicked.connect(lambda: self.step(-1))
        self.timeline.valueChanged.connect(self._on_scrub)

    # ---------------------------------------------------------------- timeline
    def set_count(self, count: int) -> None:
        """``count`` frames available (the slider's range; no signal)."""
        self.timeline.blockSignals(True)
        self.timeline.setRange(0, max(0, count - 1))
        self.timeline.blockSignals(False)

    def set_index(self, index: int) -> None:
        """Frame ``index`` was drawn: move the slider there (no signal)."""
        self.index = index
        self.stale = False
        self.timeline.blockSignals(True)
        self.timeline.setValue(index)
        self.timeline.blockSignals(False)

    # ---------------------------------------------------------------- playing
    def play(self) -> None:
        self.play_button.setChecked(True)

    def pause(self) -> None:
        self.play_button.setChecked(False)

    def is_playing(self) -> bool:
        return self.play_button.isChecked()

    def restart_clock(self, origin: int) -> None:
        """Frame ``origin`` is due now; later frames at ``fps``."""
        self._origin = origin
        self._clock.start()

    def tick(self) -> None:
        """Draw the frame the wall clock has reached (or drop the tick)."""
        if not self.isVisible():
            return  # another tab is shown: draw nothing, the clock keeps running
        if not self.ready:
            self.frames_dropped += 1  # the last frame is still being drawn: skip this tick
            return
        n = self._count()
        if n == 0:
            return
        target = min(self._origin + int(self._clock.elapsed() * self.fps / 1000), n - 1)
        if target != self.index or self.stale:
            self._draw(target)
        if target == n - 1 and self._done():
            self.pause()  # reached the end

    def _on_play_toggled(self, playing: bool) -> None:
        pix = QtWidgets.QStyle.StandardPixmap
        self.play_button.setIcon(self.style().standardIcon(
            pix.SP_MediaPause if playing else pix.SP_MediaPlay))
        n = self._count()
        if playing:
            at_end = self.index >= n - 1 and self._done()
            start = 0 if at_end else self.index
            self.restart_clock(start)
            if n:
                self._draw(start)
            self._timer.start(max(1, int(1000 / (TICKS_PER_FRAME * self.fps))))
        else:
            self._timer.stop()
            if n:
                self.picked.emit(-1 if self.index >= n - 1 and self._done() else self.index)

    def step(self, delta: int) -> None:
        """Pause and move ``delta`` frames."""
        self.pause()
        n = self._count()
        if n:
            self.picked.emit(max(0, min(self.index + delta, n - 1)))

    def _on_scrub(self, value: int) -> None:
        self.picked.emit(value)
        if self.is_playing():
            self.restart_clock(value)

    def stop_timer(self) -> None:
        self._timer.stop()
