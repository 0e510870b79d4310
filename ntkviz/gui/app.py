"""Placeholder app until the app-shell issue lands: a minimal window."""
from __future__ import annotations


def main(session=None, screenshot=None, tab=None) -> int:
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["ntkviz"])
    w = QtWidgets.QLabel("ntkviz — the panels arrive with the app-shell issue.")
    w.setWindowTitle("ntkviz")
    w.resize(480, 120)
    w.show()
    if screenshot:
        QtCore.QTimer.singleShot(300, lambda: (w.grab().save(screenshot), app.quit()))
    return app.exec()
