"""The status bar's job widget: what is being prepared, long jobs' progress, Cancel.

A job shows a progress bar once it has run for :data:`PROGRESS_DELAY_MS`, named by the
title of its :class:`~ntkviz.gui.workers.JobSlot` ("Classification: 40 %"); a job whose
panel has no Cancel button of its own also gets the bar's Cancel (one Cancel per job).
The start-up jobs (:data:`BACKGROUND_KEYS`) show no bar: the label says what is prepared.

Like the command line's progress bars, a bar with a fraction says the time elapsed and
an estimate of the time left (:func:`eta_text`: the average rate since the job started,
so the estimate is ``elapsed · (1 − f)/f`` at fraction f); :class:`ProgressClock` does the
same for a tab's own progress bar.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

__all__ = ["JobStatus", "PROGRESS_DELAY_MS", "BACKGROUND_KEYS", "ProgressClock", "eta_text",
           "duration_text", "START_KEY", "CANCEL_KEY"]

#: the main window's shortcuts pressing the current tab's Start and Cancel buttons of a job
#: that runs on demand (:meth:`ntkviz.gui.panels._base.QtPanel.use_job_buttons`)
START_KEY = "Ctrl+Return"
CANCEL_KEY = "Esc"
#: show the progress bar when a job has been running this long
PROGRESS_DELAY_MS = 400
#: dispatcher keys of the start-up jobs (not the user's: no progress bar, no Cancel)
BACKGROUND_KEYS = ("_core", "_warmup")


#: no estimate of the time left before this fraction and this many seconds
ETA_MIN_FRACTION, ETA_MIN_SECONDS = 0.01, 1.0


def duration_text(seconds: float) -> str:
    """``0:07``, ``12:03`` or ``1:02:03`` (as the command line's bars)."""
    total = max(0, int(round(seconds)))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def eta_text(fraction: float, elapsed_s: float) -> str:
    """``"0:12 · 0:18 left"``: the time since the job started and, once the fraction and
    the time are large enough to say, the time left at the average rate so far."""
    text = duration_text(elapsed_s)
    if fraction >= ETA_MIN_FRACTION and elapsed_s >= ETA_MIN_SECONDS and fraction < 1.0:
        text += f" · {duration_text(elapsed_s * (1.0 - fraction) / fraction)} left"
    return text


class ProgressClock:
    """A ``QProgressBar`` (range 0–1000) that shows its job's percentage, the time elapsed
    and the time left: :meth:`start` when the job starts, :meth:`show` at each fraction,
    :meth:`stop` when it ends (the bar keeps its value and shows the percentage only).
    ``label`` goes in front of the percentage ("context distances: ")."""

    def __init__(self, bar: QtWidgets.QProgressBar, label: str = ""):
        self.bar = bar
        self.label = label
        self._timer = QtCore.QElapsedTimer()

    def start(self) -> None:
        self._timer.start()
        self.bar.setFormat(f"{self.label}%p%")

    def show(self, fraction: float) -> None:
        fraction = max(0.0, min(1.0, float(fraction)))
        self.bar.setValue(int(round(1000 * fraction)))
        if self._timer.isValid():
            clock = eta_text(fraction, self._timer.elapsed() / 1000)
            self.bar.setFormat(f"{self.label}%p% · {clock}")

    def stop(self) -> None:
        self._timer.invalidate()
        self.bar.setFormat(f"{self.label}%p%")


class JobStatus(QtWidgets.QWidget):
    """The compile label, the progress bar and the Cancel button of the window's status
    bar, following every job of ``dispatcher``. ``cancelled`` after Cancel was pressed."""

    cancelled = Signal()

    def __init__(self, dispatcher, parent=None):
        super().__init__(parent)
        self.dispatcher = dispatcher
        self.compile_label = QtWidgets.QLabel("")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumWidth(320)
        self.progress.setTextVisible(True)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setToolTip("stop the running computation (its panel keeps its "
                                      "last result of these parameters)")
        self.cancel_button.clicked.connect(self.cancel_jobs)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        for w in (self.compile_label, self.progress, self.cancel_button):
            lay.addWidget(w)
        self.progress.hide()
        self.cancel_button.hide()
        self._busy_since: dict[str, QtCore.QElapsedTimer] = {}
        self._fraction: dict[str, float] = {}  # the last fraction of each job
        self._shown: str | None = None  # the key whose progress the bar shows
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._update)
        dispatcher.busy.connect(self._on_busy)
        dispatcher.yielded.connect(self._on_yielded)

    def set_preparing(self, text: str) -> None:
        """What the start-up is preparing ("" when done)."""
        self.compile_label.setText(text)

    def long_jobs(self) -> list[str]:
        """Keys of the user's jobs running for at least :data:`PROGRESS_DELAY_MS`."""
        return [k for k, t in self._busy_since.items()
                if t.elapsed() >= PROGRESS_DELAY_MS and k not in BACKGROUND_KEYS]

    def cancellable(self) -> list[str]:
        """Long jobs whose panel has no Cancel button of its own."""
        return [k for k in self.long_jobs() if k not in self.dispatcher.own_cancel]

    def cancel_jobs(self) -> None:
        """Cancel the long jobs the bar's Cancel stands for."""
        for key in self.cancellable():
            self.dispatcher.cancel(key)
        self.cancelled.emit()

    def _title(self, key: str) -> str:
        return self.dispatcher.titles.get(key, key)

    def _on_busy(self, key: str, busy: bool) -> None:
        if busy:
            t = QtCore.QElapsedTimer()
            t.start()
            self._busy_since[key] = t
            self._timer.start()
        else:
            self._busy_since.pop(key, None)
            self._fraction.pop(key, None)
            if key == self._shown:
                self._shown = None
            if not self._busy_since:
                self._timer.stop()
                self.progress.hide()
                self.cancel_button.hide()

    def _update(self) -> None:
        jobs = self.long_jobs()
        if jobs and self._shown not in jobs:
            self._shown = jobs[-1]  # the newest long job, until it ends
            self.progress.setRange(0, 0)  # indeterminate until a fraction arrives
            self.progress.setFormat(f"{self._title(self._shown)}…")
        self.progress.setVisible(bool(jobs))
        self.cancel_button.setVisible(bool(self.cancellable()))

    def _on_yielded(self, key: str, rid: int, item) -> None:
        fraction = getattr(item, "fraction", None)
        if fraction is None or key in BACKGROUND_KEYS:
            return
        self._shown = key
        self._fraction[key] = max(0.0, min(1.0, float(fraction)))
        self._show_fraction(key)

    def _show_fraction(self, key: str) -> None:
        """"<title>: 40 % · 0:12 · 0:18 left"."""
        fraction = self._fraction[key]
        timer = self._busy_since.get(key)
        clock = "" if timer is None else f" · {eta_text(fraction, timer.elapsed() / 1000)}"
        self.progress.setRange(0, 1000)
        self.progress.setFormat(f"{self._title(key)}: %p%{clock}")
        self.progress.setValue(int(round(1000 * fraction)))
