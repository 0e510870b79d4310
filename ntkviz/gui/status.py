"""The status bar's job widget: what is being prepared, long jobs' progress, Cancel.

A job shows a progress bar once it has run for :data:`PROGRESS_DELAY_MS`, named by the
title of its :class:`~ntkviz.gui.workers.JobSlot` ("Classification: 40 %"); a job whose
panel has no Cancel button of its own also gets the bar's Cancel (one Cancel per job).
The start-up jobs (:data:`BACKGROUND_KEYS`) show no bar: the label says what is prepared.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

__all__ = ["JobStatus", "PROGRESS_DELAY_MS", "BACKGROUND_KEYS"]

#: show the progress bar when a job has been running this long
PROGRESS_DELAY_MS = 400
#: dispatcher keys of the start-up jobs (not the user's: no progress bar, no Cancel)
BACKGROUND_KEYS = ("_core", "_warmup")


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
        self.progress.setRange(0, 1000)
        self.progress.setFormat(f"{self._title(key)}: %p%")
        self.progress.setValue(int(round(1000 * max(0.0, min(1.0, float(fraction))))))
