"""``ntkviz gui --session FILE`` refuses a bad session with one line (exit 2) before
any window opens, and opens a good one."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from faultlib import error_line, run_cli

BAD = [
    ("not an object", "[1, 2]", "object"),
    ("current is a list", '{"current": [1]}', "app"),
    ("current unknown", '{"app": "ntkviz", "panels": {}, "current": "nope"}', "current"),
    ("current a list in a session", '{"app": "ntkviz", "panels": {}, "current": [1]}', "current"),
    ("format true", '{"app": "ntkviz", "session_format": true, "panels": {}}', "session_format"),
    ("format from the future", '{"app": "ntkviz", "session_format": 99, "panels": {}}', "session_format"),
    ("unknown panel", '{"app": "ntkviz", "panels": {"nope": {}}}', "nope"),
    ("panel not an object", '{"app": "ntkviz", "panels": {"kernel": 3}}', "kernel"),
    ("depth 999", '{"app": "ntkviz", "panels": {"kernel": {"depth": 999}}}', "depth"),
    ("depth with 400 digits", '{"app": "ntkviz", "panels": {"kernel": {"depth": %s}}}' % ("9" * 400), "depth"),
    ("unknown kernel", '{"app": "ntkviz", "panels": {"kernel": {"kernels": ["foo"]}}}', "kernels"),
    ("unknown parameter", '{"app": "ntkviz", "panels": {"spectrum": {"colour": 1}}}', "colour"),
    ("bias as text", '{"app": "ntkviz", "panels": {"spectrum": {"bias": "0.1"}}}', "bias"),
    ("preset M9", '{"app": "ntkviz", "panels": {"deform": {"preset": "M9"}}}', "M9"),
    ("family bogus", '{"app": "ntkviz", "panels": {"stability": {"family": "bogus"}}}', "family"),
    ("stability seeds 1e6", '{"app": "ntkviz", "panels": {"stability": {"seeds": 1000000}}}', "seeds"),
    ("training frame 1e9", '{"app": "ntkviz", "panels": {"training": {"frame": 1000000000}}}', "frame"),
    ("invalid JSON", '{"app": ', "JSON"),
    ("nested 100000 deep", "[" * 100_000 + "]" * 100_000, "nested"),
    ("not UTF-8", b"\xff\xfe\x00garbage", "UTF-8"),
]


@pytest.fixture()
def no_window(monkeypatch):
    """Stand-in for the app: a session that passes the check would open a window."""
    import ntkviz.gui.app

    opened = []
    monkeypatch.setattr(ntkviz.gui.app, "main", lambda **kwargs: opened.append(kwargs) or 0)
    return opened


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_session_refused(case, tmp_path, capsys, no_window):
    name, content, needle = case
    path = tmp_path / "s.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    shot = tmp_path / "shot.png"
    code, _, err = run_cli(["gui", "--session", path, "--screenshot", shot], capsys)
    assert code == 2, err[-300:]
    line = error_line(err)
    assert needle in line and "s.json" in line, line
    assert not shot.exists() and no_window == []


@pytest.mark.parametrize("what", ["missing", "folder"])
def test_session_file_missing_or_folder(what, tmp_path, capsys, no_window):
    path = tmp_path / "s.json"
    if what == "folder":
        path.mkdir()
    code, _, err = run_cli(["gui", "--session", path], capsys)
    assert code == 2
    line = error_line(err).lower()
    assert "s.json" in line
    assert ("no such file" in line) if what == "missing" else ("directory" in line or "folder" in line)


def test_good_session_opens(tmp_path):
    """A session written from the parameter models' defaults opens; the screenshot is saved."""
    from ntkviz.panels import keys, model_class

    panels = {}
    for key in ("kernel", "spectrum"):
        assert key in keys()
        panels[key] = model_class(key)().to_session()
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"app": "ntkviz", "session_format": 1, "panels": panels,
                                "current": "kernel"}))
    shot = tmp_path / "shot.png"
    proc = subprocess.run([sys.executable, "-m", "ntkviz", "gui", "--session", str(path), "--screenshot",
                           str(shot)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr[-500:]
    assert shot.stat().st_size > 1000


# ------------------------------------------------------------------ --session-text
def _text(data) -> str:
    """A session string built here from its definition (zlib, base64url, prefix), not by
    the function under test."""
    import base64
    import zlib

    raw = json.dumps(data).encode()
    return "ntkviz1." + base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


GOOD_TEXT = _text({"app": "ntkviz", "session_format": 1, "current": "kernel",
                   "panels": {"kernel": {"depth": 7, "bias": 0.25}}})
BAD_TEXT = [
    ("a character changed", GOOD_TEXT[:30] + ("A" if GOOD_TEXT[30] != "A" else "B") + GOOD_TEXT[31:],
     "damaged"),
    ("cut short", GOOD_TEXT[:-6], "session-text"),
    ("characters added", GOOD_TEXT + "AAAA", "damaged"),
    ("not base64url", GOOD_TEXT[:20] + "!" + GOOD_TEXT[21:], "not an ntkviz session string"),
    ("foreign", "https://example.org/?q=1", "not an ntkviz session string"),
    ("newer format", "ntkviz9." + GOOD_TEXT[8:], "session format 9"),
    ("depth 999", _text({"app": "ntkviz", "panels": {"kernel": {"depth": 999}}}), "depth"),
    ("not a session", _text([1, 2]), "JSON object"),
    ("not JSON", "ntkviz1." + __import__("base64").urlsafe_b64encode(
        __import__("zlib").compress(b"{not json")).decode(), "not valid JSON"),
]


@pytest.mark.parametrize("case", BAD_TEXT, ids=[c[0] for c in BAD_TEXT])
def test_bad_session_text_refused_before_a_window(case, tmp_path, capsys, no_window):
    _, text, needle = case
    shot = tmp_path / "shot.png"
    code, _, err = run_cli(["gui", "--session-text", text, "--screenshot", shot], capsys)
    assert code == 2, err[-300:]
    line = error_line(err)
    assert line.startswith("ntkviz gui: error: --session-text") and needle in line, line
    assert not shot.exists() and no_window == []


def test_session_and_session_text_exclude_each_other(tmp_path, capsys, no_window):
    code, _, err = run_cli(["gui", "--session", tmp_path / "s.json", "--session-text", GOOD_TEXT],
                           capsys)
    assert code == 2 and "not allowed with" in err and no_window == []


#: the app, with the screenshot also writing the window's session beside it
SESSION_AT_SCREENSHOT = """
import json, sys
from ntkviz.gui import app

grab = app._save_grab

def save(window, path):
    with open(path + ".json", "w") as f:
        json.dump(window.session(), f)
    return grab(window, path)

app._save_grab = save
from ntkviz.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_session_text_opens_the_app_with_its_parameters(tmp_path):
    """``ntkviz gui --session-text`` in its own process: the screenshot is saved and the
    window shows the string's parameters (and its tab)."""
    shot = tmp_path / "shot.png"
    proc = subprocess.run([sys.executable, "-c", SESSION_AT_SCREENSHOT, "gui", "--session-text",
                           GOOD_TEXT, "--screenshot", str(shot)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "QT_QPA_PLATFORM": "offscreen",
                                            "XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert proc.returncode == 0, proc.stderr[-500:]
    assert shot.stat().st_size > 1000
    session = json.loads((tmp_path / "shot.png.json").read_text())
    assert session["current"] == "kernel"
    assert session["panels"]["kernel"]["depth"] == 7
    assert session["panels"]["kernel"]["bias"] == 0.25
