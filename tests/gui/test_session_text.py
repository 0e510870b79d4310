"""Sessions as text (File → Copy session as text / Open session from text…) and File →
Open recent."""
from __future__ import annotations

import base64
import json
import zlib

import pytest
from PySide6 import QtGui, QtWidgets

from ntkviz.gui.session import read_session_text, session_text
from ntkviz.gui.session_controller import RECENT_MAX, SessionTextDialog


@pytest.fixture
def window(two_tab_window):
    return two_tab_window


def _decode(text: str):
    """The JSON inside a session string, unpacked here by hand."""
    prefix, _, payload = text.partition(".")
    assert prefix == "ntkviz1"
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


def test_the_text_is_url_safe_compact_and_holds_the_session(window):
    window.panels["kernel"].model.update(depth=7, kernels=("ntk", "nngp"))
    window.panels["spectrum"].model.update(dim=12)
    text = window.sessions.text()
    assert set(text[len("ntkviz1."):]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789-_")
    assert _decode(text) == json.loads(json.dumps(window.session()))
    assert len(text) < len(json.dumps(window.session()))


def test_copy_then_open_from_text_round_trips(qtbot, window):
    kernel, spectrum = window.panels["kernel"], window.panels["spectrum"]
    kernel.model.update(depth=7, bias=0.125, extra_depths=(3, 11))
    spectrum.model.update(dim=12, weighted=True)
    window.show_panel("spectrum")
    saved = {k: p.state() for k, p in window.panels.items()}
    text = window.sessions.copy_text()
    assert QtGui.QGuiApplication.clipboard().text() == text
    kernel.model.reset()
    spectrum.model.update(dim=4)
    window.show_panel("kernel")
    dlg = SessionTextDialog(window.sessions, window)  # filled from the clipboard
    assert dlg.edit.toPlainText() == text
    dlg.edit.setPlainText(text[:40] + "\n  " + text[40:])  # wrapped by a mail program
    dlg.accept()
    assert dlg.result() == QtWidgets.QDialog.DialogCode.Accepted
    assert {k: p.state() for k, p in window.panels.items()} == saved
    assert window.current_panel() is spectrum
    assert kernel.model.history.undo_text() == "open session (3 changes)"


@pytest.mark.parametrize("damage, needle", [
    (lambda t: t[:25] + ("x" if t[25] != "x" else "y") + t[26:], "damaged"),
    (lambda t: t[:-8], "session text"),
    (lambda t: "hello " + t, "not an ntkviz session string"),
])
def test_a_bad_string_is_refused_in_one_line_and_nothing_changes(qtbot, window, damage, needle):
    kernel = window.panels["kernel"]
    kernel.model.update(depth=9)
    text = window.sessions.text()
    kernel.model.update(depth=4)
    before, steps = {k: p.state() for k, p in window.panels.items()}, len(kernel.model.history)
    dlg = SessionTextDialog(window.sessions, window)
    dlg.edit.setPlainText(damage(text))
    dlg.accept()
    assert dlg.result() != QtWidgets.QDialog.DialogCode.Accepted  # stays open, text kept
    assert dlg.edit.toPlainText() == damage(text)
    message = dlg.error.text()
    assert needle in message and "\n" not in message and message.startswith("session text:")
    assert {k: p.state() for k, p in window.panels.items()} == before
    assert len(kernel.model.history) == steps
    assert window.messages.log[-1][2] and needle in window.messages.log[-1][1]


def test_an_invalid_field_in_a_string_names_it(window):
    text = session_text({"app": "ntkviz", "session_format": 1,
                         "panels": {"spectrum": {"dim": 1}}})
    with pytest.raises(ValueError, match=r"^session text: panels\.spectrum: dim must be"):
        read_session_text(text)


def test_open_recent_lists_the_last_files_and_drops_missing_ones(qtbot, window, tmp_path):
    paths = [tmp_path / f"s{i}.json" for i in range(RECENT_MAX + 2)]
    for path in paths:
        window.save_session(path)
    assert window.sessions.recent() == [str(p) for p in reversed(paths)][:RECENT_MAX]
    assert window.open_session(paths[-3])  # opened: first again
    assert window.sessions.recent()[0] == str(paths[-3])
    paths[-1].unlink()
    paths[-2].unlink()
    window.sessions.fill_recent_menu(window.recent_menu)
    texts = [a.text() for a in window.recent_menu.actions() if not a.isSeparator()]
    assert texts[0] == f"&1 {paths[-3].name}"
    assert all(paths[-1].name not in t and paths[-2].name not in t for t in texts)
    assert texts[-1] == "Clear the list"
    note = window.messages.log[-1][1]
    assert note.startswith("removed from Open recent") and paths[-1].name in note \
        and paths[-2].name in note
    window.sessions.clear_recent()
    window.sessions.fill_recent_menu(window.recent_menu)
    assert [a.text() for a in window.recent_menu.actions()
            if a.isEnabled() and not a.isSeparator()] == []


def test_a_recent_file_gone_when_clicked_is_dropped(qtbot, window, tmp_path):
    path = tmp_path / "gone.json"
    window.save_session(path)
    path.unlink()
    assert not window.sessions.open_recent(str(path))
    assert window.sessions.recent() == []
